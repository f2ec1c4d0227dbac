"""The five seed designs, implemented end to end with singletable's modeling layer (``singletable demo``)."""
