"""``python -m singletable``: the same command line as the ``singletable`` script."""

from singletable._cli import main

main(prog_name="singletable")
