package io.gpux.engine.command;

/**
 * One command, a mutable flyweight filled in place (by a scenario parser, a ring buffer translator or
 * a journal reader) and applied by the engine. Identifiers are numeric: the edge (gateway, scenario
 * parser) maps names to ids and back; the registration commands also carry the name.
 *
 * <p>One convention for what a command does not give, set by {@link #reset}: an id or a code (market,
 * account, machine, order, lease, API key, region, interconnect) is {@link #NONE}, which is never a valid
 * id; an optional number is {@link #ABSENT} ({@code long}) or {@link #ABSENT_INT} ({@code int}); a flag is
 * false, a role set empty and the time in force GTC. The journal codec leaves a field that holds its absent
 * value out of the record, and the scenario printer leaves it off the line.
 */
public final class Command
{
    /** An optional {@code long} number not given. */
    public static final long ABSENT = Long.MIN_VALUE;
    /** An optional {@code int} number not given. */
    public static final int ABSENT_INT = Integer.MIN_VALUE;
    /** An id or a code not given. */
    public static final long NONE = 0;

    public CommandType type;
    /** Exchange time at acceptance, epoch ms (stamped by the sequencer). */
    public long timeMs;
    /** Position in the command journal, from 1 (stamped by the sequencer; 0 outside a pipeline). */
    public long sequence;

    public long marketId;
    public long accountId;
    public long machineId;
    public long orderId;
    public long leaseId;
    /** Registration name of the market, account or machine being created. */
    public String name;

    public long price = ABSENT;
    public int gpus = ABSENT_INT;
    public TimeInForce tif = TimeInForce.GTC;
    public boolean postOnly;
    public boolean gang;
    /** A bid that fills from open asks and rests but never preempts. */
    public boolean noPreempt;
    public boolean reclaim;
    /** Parts per billion (1.0 = 1_000_000_000), or ABSENT. */
    public long minReliabilityPpb = ABSENT;
    /** Region code, or NONE. */
    public long regionId = NONE;
    public long maxDurationMs = ABSENT;

    /** MARKET parameters. */
    public long tick = ABSENT;
    /** 1: on, 0: off, or ABSENT_INT (the market's default, on). */
    public int preemption = ABSENT_INT;
    public long graceMs = ABSENT;
    public long minIncrement = ABSENT;
    public long preemptIncrementBps = ABSENT;
    public boolean fragmentFirst;
    public long feeBps = ABSENT;
    public long prepayMs = ABSENT;
    public long maxGpusPerOrder = ABSENT;

    /** CONFIG parameters. */
    public long heartbeatIntervalMs = ABSENT;
    public long heartbeatTimeoutMs = ABSENT;
    public long restartWindowMs = ABSENT;

    public int roles;
    public long amount = ABSENT;
    public long depth = ABSENT;
    public long vramGb = ABSENT;
    public long interconnectId = NONE;

    public boolean hasMarket;

    /** KEY: the API key id (the gateway derives the key's secret from it; the engine keeps no secret). */
    public long keyId;
    /** KEY: revoke the key instead of adding it. */
    public boolean revoke;

    /** COD_SESSION: a cancel-on-disconnect session of the account closed (false: one opened). */
    public boolean sessionClosed;

    public Command reset(final CommandType type, final long timeMs)
    {
        this.type = type;
        this.timeMs = timeMs;
        sequence = 0;
        marketId = NONE;
        accountId = NONE;
        machineId = NONE;
        orderId = NONE;
        leaseId = NONE;
        name = null;
        price = ABSENT;
        gpus = ABSENT_INT;
        tif = TimeInForce.GTC;
        postOnly = false;
        gang = false;
        noPreempt = false;
        reclaim = false;
        minReliabilityPpb = ABSENT;
        regionId = NONE;
        maxDurationMs = ABSENT;
        tick = ABSENT;
        preemption = ABSENT_INT;
        graceMs = ABSENT;
        minIncrement = ABSENT;
        preemptIncrementBps = ABSENT;
        fragmentFirst = false;
        feeBps = ABSENT;
        prepayMs = ABSENT;
        maxGpusPerOrder = ABSENT;
        heartbeatIntervalMs = ABSENT;
        heartbeatTimeoutMs = ABSENT;
        restartWindowMs = ABSENT;
        roles = 0;
        amount = ABSENT;
        depth = ABSENT;
        vramGb = ABSENT;
        interconnectId = NONE;
        hasMarket = false;
        keyId = NONE;
        revoke = false;
        sessionClosed = false;
        return this;
    }

    public void copyFrom(final Command o)
    {
        type = o.type;
        timeMs = o.timeMs;
        sequence = o.sequence;
        marketId = o.marketId;
        accountId = o.accountId;
        machineId = o.machineId;
        orderId = o.orderId;
        leaseId = o.leaseId;
        name = o.name;
        price = o.price;
        gpus = o.gpus;
        tif = o.tif;
        postOnly = o.postOnly;
        gang = o.gang;
        noPreempt = o.noPreempt;
        reclaim = o.reclaim;
        minReliabilityPpb = o.minReliabilityPpb;
        regionId = o.regionId;
        maxDurationMs = o.maxDurationMs;
        tick = o.tick;
        preemption = o.preemption;
        graceMs = o.graceMs;
        minIncrement = o.minIncrement;
        preemptIncrementBps = o.preemptIncrementBps;
        fragmentFirst = o.fragmentFirst;
        feeBps = o.feeBps;
        prepayMs = o.prepayMs;
        maxGpusPerOrder = o.maxGpusPerOrder;
        heartbeatIntervalMs = o.heartbeatIntervalMs;
        heartbeatTimeoutMs = o.heartbeatTimeoutMs;
        restartWindowMs = o.restartWindowMs;
        roles = o.roles;
        amount = o.amount;
        depth = o.depth;
        vramGb = o.vramGb;
        interconnectId = o.interconnectId;
        hasMarket = o.hasMarket;
        keyId = o.keyId;
        revoke = o.revoke;
        sessionClosed = o.sessionClosed;
    }
}
