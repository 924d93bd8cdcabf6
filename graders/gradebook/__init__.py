"""The gradebook: storage, its schema revisions and migrations, and the instructor's
decisions kept there (overrides, extensions, drops, adjustments, the audit trail)."""
