"""dealerless.node."""
