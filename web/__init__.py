"""The Flask app every player opens on a phone."""
