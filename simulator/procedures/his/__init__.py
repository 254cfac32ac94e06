"""Here I Stand procedures (Here I Stand rules)."""
