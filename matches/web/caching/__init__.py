"""Conditional requests and cached renderings, by concern: tags (every ETag and key, from its
parts), night (the night tags name), memo (what a request works out once), renderings (kept
renderings and reads), headers (Cache-Control) and standings (the standings' keys)."""
