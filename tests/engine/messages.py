"""Error texts several engine test modules expect, each written once: AWS's, and DynamoDB Local's where it
words the same error differently (``*_LOCAL``)."""

NOT_FOUND_LOCAL = "Cannot do operations on a non-existent table"
KEY_MISMATCH = "The provided key element does not match the schema"
KEY_MISMATCH_LOCAL = "The number of conditions on the keys is invalid"
SAME_ITEM = "Transaction request cannot include multiple operations on one item"
