"""``python -m dsh`` runs the command line."""

from dsh.cli import main

main()
