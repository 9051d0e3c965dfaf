"""Privacy tests: keyed pseudonyms, owner-only PRIVATE files, strict sealed JSON (issue 10)."""
