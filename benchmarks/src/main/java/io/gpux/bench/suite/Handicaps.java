package io.gpux.bench.suite;

/**
 * What each side of the comparison does that the other does not, written into every results file: the ratios
 * mean something only with these next to them.
 */
final class Handicaps
{
    private Handicaps()
    {
    }

    static void addTo(final Report report)
    {
        report.handicaps.add("Same work, checked: both sides replay one order flow file (sha256 above), and each checks " +
            "that every pass trades exactly what the flow's reference book does (count and quantity) and that no command " +
            "fails. Flow users never meet their own orders, so gpux's self-trade prevention and exchange-core's lack of it " +
            "give the same trades.");
        report.handicaps.add("gpux does more per flow command (counted against it): every fill creates a lease (funds " +
            "taken from the bid's hold, a settlement timer), an ask that is leased out completely stays open (rulebook " +
            "13.9) and needs a CANCEL, and each lease a RELEASE: the gpux commands per flow command are in the flows table. " +
            "Every bid holds funds (and re-holds on a REPLACE), every ask checks its machine's capacity, every command " +
            "checks the account and its roles.");
        report.handicaps.add("exchange-core's order book alone has no risk checks (they are stages of its pipeline: R1 " +
            "holds funds per currency before matching, R2 releases after), so the book comparison measures gpux's funds " +
            "and leases against a bare book. exchange-core 0.5.3 ships with EVENTS_POOLING = false: its book allocates a " +
            "MatcherTradeEvent per trade, reduce and reject (its B/op above); gpux's engine allocates nothing.");
        report.handicaps.add("Pipelines on 2 cores: exchange-core's wants about 6 busy threads (grouping, R1, matching " +
            "engine, R2, results, journal) and runs here with the YIELDING wait strategy and no CPU pinning, as its " +
            "authors would on this machine; gpux's is built for 2 (a core thread that sequences, journals, matches and " +
            "writes events; the producer). exchange-core's natural home is a machine with more cores.");
        report.handicaps.add("Durability: exchange-core's journal file is opened \"rwd\", so each batch write waits for " +
            "the device, like gpux's SYNC (msync per batch); gpux's ASYNC only writes to the memory-mapped journal (it " +
            "survives a killed process, not a power cut). Compare gpux SYNC with exchange-core's journal for equal " +
            "durability. exchange-core journals commands only (LZ4-compressed batches); gpux journals commands and every " +
            "event (CRC32C each).");
        report.handicaps.add("Latency is taken at different points: gpux from when a command was due to its first event " +
            "at the publisher (after the command journal, the engine and the event journal); exchange-core from when it " +
            "was due to its results handler (after the matching engine and, if on, the journal; R2 runs alongside).");
        report.handicaps.add("Both: Java 17, the same JVM flags (the root pom's gpux.jvm.flags), G1 with the default heap, " +
            "one producer thread that backs off by yielding, the same open-loop pacing. In the collectors section both " +
            "sides run under another collector, the other flags unchanged.");
        report.handicaps.add("The collector moves the book ratio (the collectors section). gpux's engine runs as fast " +
            "with Parallel's plain card mark as with no barrier at all (Epsilon; Serial too, in the rounds where it is " +
            "not in a slower second mode), and about 12 % slower under " +
            "G1: a stall on the first memory access of each command, not the order moves' write barriers (a build " +
            "whose moves store no reference is no faster); its cause is not known. gpux's rate under G1 also " +
            "changes from one JVM to the next (10.5-12.2 M flow commands/s on the synthetic flow in ten runs), so " +
            "take the G1 rows of one run as one draw. exchange-core's book runs " +
            "at its best when its garbage lands in a warm young generation (Serial, Parallel, G1's fast rounds) and " +
            "30-35 % slower when it lands in memory not used before (Epsilon, ZGC, G1's slow rounds). The server runs the JVM's " +
            "default collector, G1 on a machine like this one: under ZGC the gateway's round trip is slower on the " +
            "2-core machine the benchmarks README describes (p50 49-59 us against 28-35, p90 6-18 ms against 0.6-2.2, " +
            "three runs each), so the G1 rows are the ones nearest the server.");
        report.handicaps.add("The books paired in one JVM: gpux's engine and exchange-core's book take turns on one thread, " +
            "so whatever slows the host for seconds slows both. exchange-core's garbage brings young collections about " +
            "once a second there (1-3 ms each), as the gateway's garbage does in ./gpux server; gpux's own JMH run has " +
            "none after its setup's full collection, so there what the engine made before it (accounts, machines, the " +
            "flyweights) is old and the orders, levels and leases it makes while measured stay young; paired, those are " +
            "promoted too. The paired figure is the one nearer the server.");
    }
}
