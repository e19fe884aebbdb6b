"""Consumer groups as the brokers see them: committed offsets, state and members of every group,
and the log start and end offsets of the partitions they read, polled from the admin API."""
