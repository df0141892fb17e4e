package io.gpux.engine.event;

/** Why a lease ended (rulebook section 7). */
public enum EndReason
{
    RELEASED, EXPIRED, PREEMPTED, OWNER_RECLAIMED, MACHINE_OFFLINE, INSUFFICIENT_FUNDS
}
