package io.gpux.sim;

import io.gpux.common.Money;
import io.gpux.sim.workload.WorkloadLane;

import io.gpux.client.GpuxClient;
import io.gpux.proto.v1.LeaseInfo;
import io.gpux.proto.v1.LeaseState;
import io.gpux.proto.v1.MachineInfo;
import io.gpux.proto.v1.OpenOrder;
import io.gpux.proto.v1.Portfolio;
import io.gpux.proto.v1.Side;
import io.gpux.sim.agent.Agent;
import io.gpux.sim.agent.Population;
import io.gpux.sim.agent.Seller;
import io.gpux.sim.market.ClientMarketAccess;
import io.gpux.sim.report.AgentRecords;
import io.gpux.sim.report.LeaseRecord;
import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * What the demo checks on the exchange's side, through the agents' own clients: portfolios during the
 * run (no machine with more GPUs leased or offered than it has), the wind-down (no lease, no open
 * order left; what an agent left open is cleaned up and reported), money (the final balances plus
 * the fees equal the deposits; none negative) and completeness of the events (each account's last
 * event number at the exchange equals the last one its client delivered).
 */
final class DemoAudit
{
    private final Map<Agent, ClientMarketAccess> accesses;
    private final PrintStream err;
    private final LeaseTrail trail;
    final List<String> portfolioProblems = new ArrayList<>();
    final List<String> leftovers = new ArrayList<>();
    long portfoliosChecked;
    long midRunChecks;

    DemoAudit(final Map<Agent, ClientMarketAccess> accesses, final LeaseTrail trail, final PrintStream err)
    {
        this.accesses = accesses;
        this.trail = trail;
        this.err = err;
    }

    /** A few owners' portfolios mid-run: leased and offered GPUs of each machine within its GPU count. */
    void checkSomePortfolios(final Population population, final int round)
    {
        final List<Seller> sellers = population.sellers();
        for (int i = 0; i < 4 && !sellers.isEmpty(); i++)
        {
            final Seller s = sellers.get((round * 4 + i) % sellers.size());
            final ClientMarketAccess access = accesses.get(s);
            if (!access.isConnected())
            {
                continue;
            }
            try
            {
                checkPortfolio(s.name(), access.client().portfolio(Duration.ofSeconds(5)));
                midRunChecks++;
            }
            catch (final Exception ex)
            {
                // a query during a reconnect: skip it
            }
        }
    }

    private void checkPortfolio(final String account, final Portfolio p)
    {
        portfoliosChecked++;
        final Map<Long, Integer> used = new HashMap<>();
        for (final LeaseInfo l : p.getLeasesList())
        {
            if (!l.getRenter() && l.getState() != LeaseState.PENDING)
            {
                used.merge(l.getMachineId(), l.getGpus(), Integer::sum);
            }
        }
        for (final OpenOrder order : p.getOrdersList())
        {
            if (order.getSide() == Side.ASK)
            {
                used.merge(order.getMachineId(), order.getOpenGpus(), Integer::sum);
            }
        }
        for (final MachineInfo m : p.getMachinesList())
        {
            final int u = used.getOrDefault(m.getMachineId(), 0);
            if (u > m.getGpus())
            {
                portfolioProblems.add(account + " machine " + m.getMachineId() + ": " + u + " GPUs leased or offered of " + m.getGpus());
            }
        }
    }

    /**
     * Waits until no account has a lease or an open order (at most 30 s); returns each agent's last
     * portfolio. A query that fails (the client is reconnecting) is asked again. The workload lane's
     * accounts ({@code lane}, by name) are swept like the agents': what its stopped agents and jobs left
     * open (a release or a withdrawal that did not get through around a restart) is cleaned up and
     * reported with the agents' leftovers.
     */
    Map<Agent, Portfolio> windDown(final List<Agent> everyone, final Map<String, GpuxClient> lane) throws InterruptedException
    {
        final long deadline = System.currentTimeMillis() + 30_000;
        final Map<String, GpuxClient> accounts = new LinkedHashMap<>();
        final Map<String, Agent> agents = new HashMap<>();
        for (final Agent a : everyone)
        {
            accounts.put(a.name(), accesses.get(a).client());
            agents.put(a.name(), a);
        }
        accounts.putAll(lane);
        final Map<Agent, Portfolio> last = new HashMap<>();
        int sweep = 0;
        while (true)
        {
            boolean quiet = true;
            for (final Map.Entry<String, GpuxClient> account : accounts.entrySet())
            {
                final Portfolio p = portfolio(account.getValue(), deadline);
                if (p == null)
                {
                    quiet = false;
                    continue;
                }
                if (agents.containsKey(account.getKey()))
                {
                    last.put(agents.get(account.getKey()), p);
                }
                if (p.getLeasesCount() > 0 || p.getOrdersCount() > 0)
                {
                    quiet = false;
                    if (++sweep % 5 == 0)
                    {
                        // the agents stopped some time ago: whatever is left is cleaned up by the operator
                        leftovers.add(account.getKey() + ": " + p.getOrdersCount() + " orders, " + p.getLeasesCount() + " leases");
                        sweepUp(account.getValue(), p);
                    }
                }
            }
            if (quiet || System.currentTimeMillis() > deadline)
            {
                return last;
            }
            Thread.sleep(200);
        }
    }

    /** Mass-cancels what an account still has open and releases the leases it rents. */
    private static void sweepUp(final GpuxClient client, final Portfolio p)
    {
        if (p.getOrdersCount() > 0)
        {
            client.massCancel(null);
        }
        for (final LeaseInfo l : p.getLeasesList())
        {
            if (l.getRenter())
            {
                client.release(l.getLeaseId());
            }
        }
    }

    /** An account's portfolio, retried while its client reconnects; null if none came before the deadline. */
    private static Portfolio portfolio(final GpuxClient client, final long deadline) throws InterruptedException
    {
        while (true)
        {
            try
            {
                return client.portfolio(Duration.ofSeconds(10));
            }
            catch (final IllegalStateException | IOException | TimeoutException ex)
            {
                if (System.currentTimeMillis() > deadline)
                {
                    return null;
                }
                Thread.sleep(50);
            }
        }
    }

    /**
     * Logs every account in once more, on a fresh connection, and compares the exchange's last event
     * number for it (LoginAccepted.last_seq) with the last one the agent's client delivered: equal
     * means the agent saw every event of its account (its records also show them gap-free).
     *
     * @return how many accounts differ.
     */
    int verifyLastSeqs(final List<Agent> everyone, final Function<Agent, GpuxClient> freshClient) throws Exception
    {
        final ExecutorService pool = Executors.newFixedThreadPool(8);
        final AtomicInteger mismatches = new AtomicInteger();
        try
        {
            final List<Future<?>> done = new ArrayList<>();
            for (final Agent a : everyone)
            {
                done.add(pool.submit(() ->
                {
                    final long exchangeLast;
                    try (GpuxClient audit = freshClient.apply(a))
                    {
                        audit.connect();
                        exchangeLast = audit.loginAccepted().getLastSeq();
                    }
                    final GpuxClient client = accesses.get(a).client();
                    final long deadline = System.currentTimeMillis() + 10_000;
                    while (client.lastSeq() < exchangeLast && System.currentTimeMillis() < deadline)
                    {
                        Thread.sleep(10);
                    }
                    if (client.lastSeq() != exchangeLast)
                    {
                        mismatches.incrementAndGet();
                        err.println("gpux demo: " + a.name() + ": the exchange's last event is " + exchangeLast
                            + ", the client's " + client.lastSeq());
                    }
                    return null;
                }));
            }
            for (final Future<?> f : done)
            {
                f.get(120, TimeUnit.SECONDS);
            }
        }
        finally
        {
            pool.shutdownNow();
        }
        return mismatches.get();
    }

    /**
     * The money checks and the wind-down's: nothing left open. What is left (a lease, an order) is named in
     * {@code leftOpenAfterWindDown}, and printed, with its accounts, market and last events.
     */
    void moneyChecks(final Map<String, Object> checks, final List<AgentRecords> records, final Map<Agent, Portfolio> finals,
        final long deposits, final List<Agent> everyone, final WorkloadLane.Money lane)
    {
        long fees = 0;
        for (final AgentRecords r : records)
        {
            for (final LeaseRecord l : r.ownerLeases.values())
            {
                fees += l.feeMicros;
            }
        }
        long balances = 0;
        boolean nonNegative = true;
        boolean noLeases = true;
        boolean allAnswered = true;
        for (final Agent a : everyone)
        {
            final Portfolio p = finals.get(a);
            if (p == null)
            {
                allAnswered = false;
                continue;
            }
            balances += p.getBalance();
            nonNegative &= p.getBalance() >= 0 && p.getAvailable() >= 0;
            noLeases &= p.getLeasesCount() == 0 && p.getOrdersCount() == 0;
            checkPortfolio(a.name(), p);
        }
        long allDeposits = deposits;
        if (lane != null)
        {
            // the workload lane's accounts trade with everyone else: its money is in the same sums
            allDeposits += lane.deposits();
            balances += lane.balances();
            fees += lane.fees();
            allAnswered &= lane.allAnswered();
            nonNegative &= lane.nonNegative();
            noLeases &= lane.nothingOpen();
        }
        checks.put("finalPortfoliosAnswered", allAnswered);
        checks.put("moneyConserved", balances + fees == allDeposits);
        checks.put("depositsMicros", allDeposits);
        checks.put("balancesMicros", balances);
        checks.put("feesMicros", fees);
        checks.put("noNegativeBalance", nonNegative);
        checks.put("allLeasesEndedAfterWindDown", noLeases);
        final Map<String, Portfolio> byAccount = new TreeMap<>();
        finals.forEach((a, p) -> byAccount.put(a.name(), p));
        if (lane != null)
        {
            byAccount.putAll(lane.portfolios());
        }
        final List<String> left = leftOpen(byAccount, trail);
        if (!left.isEmpty())
        {
            for (final String what : left)
            {
                err.println("gpux demo: left open after the wind-down: " + what);
            }
            checks.put("leftOpenAfterWindDown", String.join(" | ", left));
        }
    }

    /**
     * What the final portfolios still hold: each lease once (its market, machine, state, renter and owner) and each
     * open order, with their last events and their accounts' last logins and drops.
     */
    static List<String> leftOpen(final Map<String, Portfolio> finals, final LeaseTrail trail)
    {
        final List<String> left = new ArrayList<>();
        final Map<Long, LeaseInfo> leases = new TreeMap<>();
        final Map<Long, String> renters = new HashMap<>();
        final Map<Long, String> owners = new HashMap<>();
        finals.forEach((account, p) ->
        {
            for (final OpenOrder o : p.getOrdersList())
            {
                left.add("order " + o.getOrderId() + " (" + o.getSide() + " " + o.getMarket() + ", " + o.getOpenGpus()
                    + " GPUs open at " + Money.formatPrice(o.getPrice()) + ") of " + account + "; its last events: "
                    + trail.order(o.getOrderId()) + "; " + account + "'s sessions: " + trail.sessions(account));
            }
            for (final LeaseInfo l : p.getLeasesList())
            {
                leases.putIfAbsent(l.getLeaseId(), l);
                (l.getRenter() ? renters : owners).put(l.getLeaseId(), account);
            }
        });
        leases.forEach((id, l) ->
        {
            final String renter = renters.getOrDefault(id, "?");
            final String owner = owners.getOrDefault(id, "?");
            left.add("lease " + id + " (" + l.getMarket() + ", machine " + l.getMachineId() + ", " + l.getGpus() + " GPUs, "
                + l.getState()
                + (l.getNoticeEffectiveMs() > 0 ? ", notice effective " + LeaseTrail.time(l.getNoticeEffectiveMs()) : "")
                + ") rented by " + renter + " on a machine of " + owner + "; its last events: " + trail.lease(id)
                + "; sessions: " + renter + ": " + trail.sessions(renter) + "; " + owner + ": " + trail.sessions(owner));
        });
        return left;
    }
}
