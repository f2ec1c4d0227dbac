"""The places design's migrations, one module per migration (``0001_...py``), applied in the order of their
ids: ``singletable migrate up <this directory> TARGET`` (or ``python -m singletable.examples.places.migrate``
for the copy from the older layout)."""
