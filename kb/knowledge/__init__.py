"""Cases and families: the schema, the model, loading and the registry."""
