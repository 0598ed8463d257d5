"""The Nostr transport: a table's frames as encrypted events on public Nostr relays (NIP-01).

``event`` (event ids and BIP-340 signatures), ``table_crypto`` (the table tag, key, sealing and
padding), ``relay`` (one relay connection), ``pool`` (all relays of a table), ``link`` (a
:class:`~dealerless.node.links.Link` over the pool). See spec/transport.md, "Nostr".
"""
