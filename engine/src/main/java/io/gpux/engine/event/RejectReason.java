package io.gpux.engine.event;

/**
 * Why a command changed nothing (rulebook sections 11 and 13.3; UNKNOWN_KEY: docs/market-rules.md section 13).
 * Ordinals are journaled: new reasons go at the end.
 */
public enum RejectReason
{
    UNKNOWN_MARKET, MARKET_HALTED, UNKNOWN_MACHINE, NOT_OWNER, INVALID_PRICE, INVALID_QUANTITY,
    INSUFFICIENT_CAPACITY, INSUFFICIENT_FUNDS, DUPLICATE_ORDER_ID, UNKNOWN_ORDER, POST_ONLY_WOULD_MATCH,
    NOT_AUTHORIZED, RATE_LIMITED, UNKNOWN_ACCOUNT, UNKNOWN_LEASE, INVALID_PARAMETER, DUPLICATE_ID,
    UNKNOWN_KEY
}
