"""This design's migrations, one module per migration (``0001_...py``), applied in the order of their ids:
``singletable migrate plan|up|status <this directory> TARGET`` (see docs/migrations.md and the README's
"Migration" section)."""
