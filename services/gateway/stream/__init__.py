"""The live stream: one Kafka consumer per gateway process fanned
out as Server-Sent Events to every client, resumable with Last-Event-ID."""

from services.gateway.stream.endpoint import routes
from services.gateway.stream.hub import Hub, HubLimits

__all__ = ["Hub", "HubLimits", "routes"]
