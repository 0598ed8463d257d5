"""dealerless.client."""
