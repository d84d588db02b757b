"""Entry script of the frozen Parley bundle (PyInstaller): the same as the `parley` console script."""

import multiprocessing
import sys

if __name__ == "__main__":
    multiprocessing.freeze_support()  # model downloads run in a spawned child process
    from app.cli.command import main

    sys.exit(main())
