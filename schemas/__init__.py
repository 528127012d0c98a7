"""Versioned event models, the CloudEvents envelope, upcasters and exported JSON Schemas."""
