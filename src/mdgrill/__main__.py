from mdgrill.cli.main import entry

entry()
