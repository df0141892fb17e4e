package io.gpux.engine.event;

/** Every event of the rulebook, section 11. */
public enum EventType
{
    ACCEPTED, REJECTED, CANCELLED, FILL, TRADE, LEASE_STARTED, PREEMPT_NOTICE, LEASE_ENDED, SETTLED, BALANCE,
    MACHINE_ONLINE, MACHINE_OFFLINE, BOOK
}
