#!/usr/bin/env bash
# Rebuild the bundled examples from scratch, using nothing but mdgrill's own verbs (plus the
# phase artifacts a real agent would have written), so every digest in them is genuine.
#
#   examples/build_examples.sh [OUT]      (default OUT: the folder holding this script)
#
# OUT is the examples' project root: CONTEXT-MAP.md, contexts/ and specs/. They are built in a
# scratch folder outside any repository (a spec inside one is under that repository's root
# whatever --root says) and copied to OUT, so the paths recorded in the specs are relative to
# the examples' own root and the output is byte-for-byte the same wherever it is built
# (tests/test_examples.py checks that against the committed files).
set -euo pipefail

OUT=${1:-$(dirname "$0")}
MDGRILL=${MDGRILL:-mdgrill}
# Every answer and approval names who gave it (`- By:`, from git's identity when no --by is
# given): one fixed person keeps the output the same on every machine.
export GIT_AUTHOR_NAME="Sam Example" GIT_AUTHOR_EMAIL="sam@example.com"
export GIT_COMMITTER_NAME="Sam Example" GIT_COMMITTER_EMAIL="sam@example.com"
mkdir -p "$OUT"
FINAL=$(cd "$OUT" && pwd)
SCRATCH=$(mktemp -d)
trap 'rm -rf "$SCRATCH"' EXIT
OUT="$SCRATCH/examples"
mkdir -p "$OUT"
cd "$OUT"

m() { "$MDGRILL" --root "$OUT" "$@" >/dev/null; }

# --- the glossaries: a map with two contexts (terms are added by `term add` below) --------
mkdir -p contexts/ordering contexts/billing
cat > CONTEXT-MAP.md <<'MD'
# Context map

How the shop's language is split between bounded contexts.

## Contexts

- [Ordering](contexts/ordering/CONTEXT.md): orders placed by customers and how they are fulfilled
- [Billing](contexts/billing/CONTEXT.md): invoices, payments and reminders for unpaid invoices

## Relationships

- An **Order** in Ordering produces one **Invoice** in Billing once it is paid or due.
MD
cat > contexts/ordering/CONTEXT.md <<'MD'
# Ordering

Orders placed by customers and how they are fulfilled.

## Language
MD
cat > contexts/billing/CONTEXT.md <<'MD'
# Billing

Invoices, payments, and what happens when an invoice is not paid on time.

## Language
MD
m term add --context ordering "Order" \
  --definition "A customer's request to buy one or more products, placed at checkout." \
  --avoid purchase --avoid basket
m term add --context billing "Invoice" \
  --definition "A request for payment for one order, with a due date." --avoid bill

# --- 1. passwordless-login: mid-interview (requirements, collecting, round 2) ------------
S=specs/passwordless-login
m init $S --title "Passwordless login" \
  --goal "Let customers sign in with a one-time email link instead of a password." \
  --required-section users --required-section security --required-section scope
cat > $S/research.md <<'MD'
# Research: passwordless login

## Findings

- `src/auth/routes.py` serves the public site only; staff sign in through the company SSO.
- Sessions are JWTs signed in `src/auth/session.py`, valid for 15 minutes and refreshed on use.
- The mailer (`src/notify/mailer.py`) delivers 95% of messages within 30 seconds.

## Open questions

- Link lifetime, single use, and whether passwords stay.
MD
m node add $S D1 --title "Who signs in with a link?" --section users \
  --evidence "src/auth/routes.py serves only the public site" \
  --option "External customers: the login page is public-facing" \
  --option "Internal staff: staff already have SSO" \
  --option "Both: one sign-in flow for everyone" --recommend 1
m node add $S D2 --title "How long does a link stay valid?" --section security --depends-on D1 \
  --option "1 hour: fewer resends when mail is slow" \
  --option "15 minutes: matches the session lifetime" --recommend 2 \
  --rationale "a link outliving the session it opens adds no safety" \
  --tradeoffs "shorter is safer; longer forgives slow mail"
m node add $S D3 --title "Do passwords stay as a fallback?" --section scope --depends-on D1 \
  --option "Keep passwords: links are an extra option" \
  --option "Remove passwords: links only" --recommend 1
m node add $S D4 --title "What happens when a used link is opened again?" --section security \
  --depends-on D2 \
  --option "Refuse and offer a new link: single use" \
  --option "Sign in again while it is valid" --recommend 1
m begin-interview $S --phase requirements --interview-id req-1
m open-frontier $S --round 1 --decision-id D1
m record-fact $S "sessions are JWTs signed in src/auth/session.py (15 minutes)"
m record-answer $S --decision-id D1 --answer "External customers only; staff keep SSO"
m open-frontier $S --round 2 --decision-id D2 --decision-id D3
m record-answer $S --decision-id D3 --answer "Keep passwords for now; links are an extra option"

# --- 2. order-fulfilment: approved (design, complete), with a revision on the way --------
S=specs/order-fulfilment
m init $S --title "Order fulfilment" \
  --goal "Ship paid orders from the nearest warehouse and tell customers where their parcel is." \
  --required-section fulfilment --required-section inventory --required-section notifications
cat > $S/research.md <<'MD'
# Research: order fulfilment

- Checkout (`services/checkout`) marks an order paid and stops there; nothing ships it.
- Two warehouses (Leeds, Lyon) expose a stock API (`GET /stock/{sku}`) and a pick-list API.
- Carriers: DPD for the UK, Colissimo for France; both offer tracking webhooks.
MD
cat > $S/requirements.md <<'MD'
# Requirements: order fulfilment

## User stories

- As a customer, I get my parcel from the nearest warehouse that has every item.
- As a customer, I am told when my order ships and where it is.
- As the warehouse team, I never pick an item that another order already took.

## Acceptance criteria

- A paid order is on a pick list within 5 minutes.
- Stock is reserved at payment; a reservation that is not picked expires.
- A shipping email with a tracking link is sent when the carrier accepts the parcel.
MD
m node add $S D1 --title "Where is fulfilment orchestrated?" --section fulfilment \
  --evidence "services/checkout stops at paid" \
  --option "A fulfilment service: owns the order after payment" \
  --option "Inside checkout: fewer moving parts" --recommend 1 \
  --consequences "a new service and queue to run"
m node add $S D2 --title "When is stock reserved?" --section inventory --depends-on D1 \
  --option "At payment: no stock held for abandoned carts" \
  --option "When checkout starts" \
  --option "Never: oversell and backorder" --recommend 1
m node add $S D3 --title "How are orders split across warehouses?" --section fulfilment \
  --depends-on D1 --depends-on D2 \
  --option "Whole order from one warehouse, else split" \
  --option "Always split by stock" --recommend 1
m node add $S D4 --title "Which notifications does the customer get?" --section notifications \
  --depends-on D1 \
  --option "Shipped, with tracking link" \
  --option "Every carrier event" \
  --option "None: customers check the account page" --recommend 1
m node add $S D5 --title "Do we ship outside the UK and France?" --section fulfilment \
  --depends-on D1 \
  --option "No: two carriers only" \
  --option "Yes: add an aggregator" --recommend 1
m node add $S D7 --title "Which carrier integration comes first?" --section fulfilment \
  --depends-on D3 \
  --option "DPD: most orders are British" \
  --option "Colissimo" --recommend 1
m begin-interview $S --phase design --interview-id design-1
m open-frontier $S --round 1 --decision-id D1
m record-fact $S "both warehouses expose pick-list APIs (research.md)"
m record-answer $S --decision-id D1 --answer "A fulfilment service that consumes order.paid events"
m term add --context ordering --spec $S "Fulfilment" \
  --definition "Everything that happens to an order after payment until it reaches the customer." \
  --avoid shipping
m open-frontier $S --round 2 --decision-id D2 --decision-id D4 --decision-id D5
m record-answer $S --decision-id D2 --answer "Reserve at payment"
m node add $S D6 --title "How long does a reservation hold before it expires?" \
  --section inventory --spawned-by D2 \
  --option "24 hours: covers a weekend pick backlog" \
  --option "2 hours: stock returns quickly" --recommend 1
m record-answer $S --decision-id D4 --answer "Only a shipped email with the tracking link"
m out-of-scope $S --decision-id D5 --reply "Not now: UK and France only for this launch"
m open-frontier $S --round 3 --decision-id D3 --decision-id D6
m record-answer $S --decision-id D3 --answer "Always split by stock"
m record-answer $S --decision-id D6 --answer "24 hours, then the stock is released"
m term add --context ordering --spec $S "Reservation" \
  --definition "Stock set aside for one paid order until it is picked or expires." \
  --avoid hold --avoid allocation
m open-frontier $S --round 4 --decision-id D7
m record-answer $S --decision-id D7 --answer "DPD first; Colissimo next quarter"
cat > "$SCRATCH/brief.md" <<'MD'
**Approach**: a fulfilment service consumes `order.paid`, reserves stock for 24 hours, splits
orders by stock and hands parcels to DPD first.

| ID | Decision |
|----|----------|
| D1 | fulfilment service on order.paid |
| D2 | reserve at payment |
| D3 | always split by stock |
| D4 | shipped email with tracking |
| D6 | 24-hour reservation |
| D7 | DPD first |
MD
m await-confirmation $S --decision-id C1 --brief-file "$SCRATCH/brief.md" \
  --approach "Fulfilment service on order.paid, reserve at payment, split by stock, DPD first"
m revise $S --decision-id D3   # reopens D7 too: its answer depended on D3
m record-answer $S --decision-id D3 \
  --answer "Whole order from the nearest warehouse that has everything, else split"
m open-frontier $S --round 6 --decision-id D7
m record-answer $S --decision-id D7 --answer "DPD first; Colissimo next quarter"
m await-confirmation $S --decision-id C1 \
  --approach "Fulfilment service on order.paid, reserve at payment, prefer one warehouse, DPD first"
m confirm $S --decision-id C1 --source approve-and-delegate --reply "Approve and delegate" \
  --no-commit

# --- 3. invoice-reminders: awaiting confirmation, language from both contexts ------------
S=specs/invoice-reminders
m init $S --title "Invoice reminders" \
  --goal "Remind customers about unpaid invoices before and after the due date." \
  --required-section reminders --required-section billing
m node add $S D1 --title "When is the first reminder sent?" --section reminders \
  --option "3 days before the due date" \
  --option "On the due date" \
  --option "7 days after the due date" --recommend 1
m node add $S D2 --title "Which orders get reminders?" --section reminders \
  --option "Orders paid by invoice only: card orders are paid at checkout" \
  --option "Every order with an open balance" --recommend 1
m node add $S D3 --title "Who owns the reminder schedule?" --section billing \
  --option "Billing: reminders are part of dunning" \
  --option "Ordering: the order knows its customer" --recommend 1
m node add $S D4 --title "What stops the reminders?" --section billing --depends-on D3 \
  --option "Payment received, or a dispute opened" \
  --option "Payment received only" --recommend 1
m begin-interview $S --phase requirements --interview-id req-1
m open-frontier $S --round 1 --decision-id D1 --decision-id D2 --decision-id D3
m record-answer $S --decision-id D1 --answer "3 days before the due date"
m record-answer $S --decision-id D2 --answer "Orders paid by invoice only"
m term add --context ordering --spec $S "Invoice order" \
  --definition "An order the customer pays by invoice after delivery instead of at checkout." \
  --avoid "credit order"
m record-answer $S --decision-id D3 --answer "Billing owns it, as part of dunning"
m term add --context billing --spec $S "Dunning" \
  --definition "The schedule of reminders and escalations for an overdue invoice." \
  --avoid chasing --avoid collections
m open-frontier $S --round 2 --decision-id D4
m record-answer $S --decision-id D4 --answer "Payment received, or a dispute opened"
m term add --context billing --spec $S "Dispute" \
  --definition "A customer's objection to an invoice; it pauses dunning until resolved." \
  --avoid complaint
cat > "$SCRATCH/brief.md" <<'MD'
Billing sends the first reminder 3 days before the due date for orders paid by invoice, and
stops on payment or when a dispute is opened.
MD
m await-confirmation $S --decision-id C1 --brief-file "$SCRATCH/brief.md" \
  --approach "Billing-owned dunning for invoice orders, from 3 days before the due date"

"$MDGRILL" --root "$OUT" validate "$OUT" >/dev/null
rm -rf "$FINAL/specs" "$FINAL/contexts" "$FINAL/CONTEXT-MAP.md"
cp -R "$OUT/specs" "$OUT/contexts" "$OUT/CONTEXT-MAP.md" "$FINAL/"
