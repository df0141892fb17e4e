package io.gpux.sim.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Everything one agent recorded, written only on the agent's thread and read once it has stopped.
 * Insertion-ordered maps keep the report deterministic.
 */
public final class AgentRecords
{
    public final String agent;
    public final String kind;
    public final List<MachineRecord> machines = new ArrayList<>();
    public final Map<Long, LeaseRecord> renterLeases = new LinkedHashMap<>();
    public final Map<Long, LeaseRecord> ownerLeases = new LinkedHashMap<>();
    public final List<JobRecord> jobs = new ArrayList<>();
    public final List<TradeRecord> sales = new ArrayList<>();
    public final List<DepthSample> depth = new ArrayList<>();
    /** Account events seen, the first and last seq, and seqs that did not follow the previous one. */
    public long events;
    public long firstSeq = -1;
    public long lastSeq = -1;
    public long seqBreaks;
    /** Bids and asks refused, by reason. */
    public final Map<String, Long> rejects = new LinkedHashMap<>();

    public AgentRecords(final String agent, final String kind)
    {
        this.agent = agent;
        this.kind = kind;
    }
}
