"""The writes of play that carry a game rule, one module per subject: the tap, the undo, and a
table's launch, roster, close and reopen."""
