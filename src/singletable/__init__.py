"""singletable: DynamoDB single-table design with an embedded, DynamoDB-compatible engine."""

__version__ = "0.1.0"
