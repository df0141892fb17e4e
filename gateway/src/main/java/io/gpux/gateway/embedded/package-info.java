/**
 * The gateway's protocol logic without sockets ({@link io.gpux.gateway.embedded.EmbeddedGateway}):
 * request checks and id assignment, account events with their numbering, responses and market data,
 * as the Netty gateway does them, around a matching engine the caller drives in one thread.
 */
package io.gpux.gateway.embedded;
