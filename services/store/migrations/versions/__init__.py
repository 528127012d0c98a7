"""The store's schema versions, oldest first by `down_revision`."""
