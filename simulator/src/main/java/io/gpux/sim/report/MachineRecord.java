package io.gpux.sim.report;

/** What an owner (or a market-maker) knows of one of its machines, in market time. */
public final class MachineRecord
{
    public final String name;
    public final String owner;
    public final String market;
    public final int gpus;
    public final String region;
    /** The owner's reserve price (its cost), currency per GPU-hour. */
    public final double cost;
    /** The exchange's id (0 until registered). */
    public long machineId;
    /** Online as the exchange reports it (MachineOnline / MachineOffline events). */
    public final Intervals online = new Intervals();
    /** The machine's ask is open (Accepted to Cancelled). */
    public final Intervals listed = new Intervals();
    /** The machine is broken (it stopped heartbeating) until repaired. */
    public final Intervals failed = new Intervals();
    /** The owner took it back for its own use. */
    public final Intervals reclaimed = new Intervals();
    /** Times the exchange took the machine offline while it was not broken (heartbeats late: an outage, a stall). */
    public int offlineWithoutFailure;

    public MachineRecord(final String name, final String owner, final String market, final int gpus, final String region,
        final double cost)
    {
        this.name = name;
        this.owner = owner;
        this.market = market;
        this.gpus = gpus;
        this.region = region;
        this.cost = cost;
    }
}
