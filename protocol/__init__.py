"""dealerless.protocol."""
