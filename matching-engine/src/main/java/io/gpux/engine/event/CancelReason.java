package io.gpux.engine.event;

/** Why an order was cancelled. */
public enum CancelReason
{
    USER, OWNER_RECLAIM, MASS_CANCEL, IOC, FOK
}
