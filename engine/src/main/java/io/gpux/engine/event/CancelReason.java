package io.gpux.engine.event;

/** Why an order was cancelled (EXCHANGE_RESTART: docs/market-rules.md section 14). */
public enum CancelReason
{
    USER, OWNER_RECLAIM, MASS_CANCEL, IOC, FOK, EXCHANGE_RESTART
}
