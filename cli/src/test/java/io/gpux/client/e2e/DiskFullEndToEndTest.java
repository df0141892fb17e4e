package io.gpux.client.e2e;

import io.gpux.client.ClientListener;
import io.gpux.client.GpuxClient;
import io.gpux.common.Money;
import io.gpux.proto.v1.AccountEvent;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.PlaceBid;
import io.gpux.proto.v1.Reason;
import io.gpux.proto.v1.Response;
import io.gpux.proto.v1.Role;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import static io.gpux.client.e2e.E2e.MARKET;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The real server with its data directory on a 20 MB tmpfs, a client streaming bids until the disk is
 * full: the server answers UNAVAILABLE with the reason instead of writing where there is no space,
 * takes bids again by itself once the tmpfs is remounted larger, and restarts holding every bid it
 * acknowledged and none it refused (the account's events, resent from the start, say so). Needs {@code mount} (root); skipped, saying
 * so, where it is not permitted.
 */
class DiskFullEndToEndTest
{
    private static final int WINDOW = 2000;
    private static final long PRICE = Money.parsePrice("0.0100");

    @TempDir
    Path dir;

    @RegisterExtension
    final DumpOnFailure dump = new DumpOnFailure();

    private Path mountPoint;
    private boolean mounted;
    private ServerProcess server;
    private GpuxClient admin;
    private GpuxClient renter;
    /** Request id -> the answer. */
    private final Map<Long, Response> answers = new ConcurrentHashMap<>();
    private volatile boolean refusedOnce;

    @BeforeEach
    void mountSmallTmpfs() throws Exception
    {
        mountPoint = dir.resolve("mnt");
        Files.createDirectories(mountPoint);
        // the fresh data directory takes some 12 MB (each journal reserves 4 MB ahead of its writer): 20 MB leaves
        // about 4 MB of journal, some 20,000 bids, before the 2 MB floor; much less leaves too few bids to tell
        mounted = run("mount", "-t", "tmpfs", "-o", "size=20m", "tmpfs", mountPoint.toString()) == 0;
        assumeTrue(mounted, "mounting a tmpfs is not permitted here (needs root): the disk-full test cannot run");
    }

    @AfterEach
    void tearDown() throws Exception
    {
        E2e.closeQuietly(renter, admin);
        if (server != null)
        {
            server.close();
        }
        if (mounted)
        {
            run("umount", "-l", mountPoint.toString());
        }
    }

    private static int run(final String... command) throws IOException, InterruptedException
    {
        final Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        return p.waitFor(10, TimeUnit.SECONDS) ? p.exitValue() : -1;
    }

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void fullDiskRefusesWithTheReasonLosesNothingAcknowledgedAndRestarts() throws Exception
    {
        final Path data = mountPoint.resolve("data");
        server = new ServerProcess(dir, null, 1000).dataDir(data).options("--min-free-mb", "2");
        dump.register("server process output", server::log);
        server.start();
        admin = E2e.connect(server.port(), server.adminKey(), new Recorder("admin"));
        final E2e.Key renterKey = E2e.account(admin, "renter", Role.RENTER, 1_000_000_000_000_000L);
        renter = E2e.connect(server.port(), renterKey, new Recorder("renter"), ctx -> ctx.listener(new ClientListener()
        {
            @Override
            public void onResponse(final long requestId, final Response response)
            {
                answers.put(requestId, response);
                if (response.getReason() == Reason.UNAVAILABLE)
                {
                    refusedOnce = true;
                }
            }
        }));

        // stream bids, WINDOW unanswered at most, until the server refuses one
        final Map<Long, Long> orderOf = new ConcurrentHashMap<>();
        long orderId = 0;
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(40);
        while (!refusedOnce)
        {
            if (orderId - answers.size() < WINDOW)
            {
                orderId++;
                orderOf.put(renter.placeBid(orderId, MARKET, 1, PRICE), orderId);
            }
            else
            {
                Thread.onSpinWait();
            }
            if (System.nanoTime() > deadline)
            {
                fail("no refusal after " + orderId + " bids");
            }
        }
        E2e.await("every bid answered", () -> answers.size() == orderOf.size());

        final Set<Long> acknowledged = new HashSet<>();
        final Set<Long> refused = new HashSet<>();
        final Pattern reason = Pattern.compile("journal disk full: \\d+ MB free under " + Pattern.quote(data.toString()) +
            ", need \\d+ MB");
        for (final Map.Entry<Long, Long> e : orderOf.entrySet())
        {
            final Response r = answers.get(e.getKey());
            if (r.getReason() == Reason.UNAVAILABLE)
            {
                assertTrue(reason.matcher(r.getMessage()).matches(), r::toString);
                assertEquals(0, r.getCommandSeq(), r::toString);
                refused.add(e.getValue());
            }
            else
            {
                assertEquals(Reason.REASON_OK, r.getReason(), r::toString);
                assertTrue(r.getCommandSeq() > 0, r::toString);
                acknowledged.add(e.getValue());
            }
        }
        assertTrue(acknowledged.size() > 1000, "bids acknowledged before the disk filled: " + acknowledged.size());
        assertTrue(server.log().contains("refusing new commands"), "the refusal is logged");

        // more room: the running server takes bids again by itself
        assertEquals(0, run("mount", "-o", "remount,size=64m", mountPoint.toString()));
        final long resumed = ++orderId;
        E2e.await("a bid accepted after the disk grew", E2e.TIMEOUT, () -> bidAccepted(resumed), server::log);
        acknowledged.add(resumed);
        assertTrue(server.log().contains("accepting commands again"), "the end of the refusal is logged");

        // a restart recovers it all: the account's events, resent from the start, accept every bid acknowledged
        E2e.closeQuietly(renter, admin);
        renter = null;
        admin = null;
        server.stop();
        server.start();
        final Recorder replayed = new Recorder("renter-after-restart");
        renter = E2e.connect(server.port(), renterKey, replayed, ctx -> ctx.lastSeq(0));
        E2e.await("the resend after the restart", () -> !replayed.resends().isEmpty());
        final Set<Long> accepted = new HashSet<>();
        for (final AccountEvent e : replayed.events(AccountEvent.KindCase.ACCEPTED))
        {
            assertTrue(accepted.add(e.getAccepted().getOrderId()), () -> "accepted twice: " + e);
        }
        assertTrue(accepted.containsAll(acknowledged), () -> "acknowledged bids the restarted exchange lacks: " +
            acknowledged.stream().filter(id -> !accepted.contains(id)).limit(20).toList());
        assertEquals(acknowledged, accepted, "the exchange holds the acknowledged bids and none of the refused ones");
        assertTrue(refused.stream().noneMatch(accepted::contains));

        // and takes bids
        assertEquals(Reason.REASON_OK, renter.call(Envelope.newBuilder().setPlaceBid(PlaceBid.newBuilder()
            .setOrderId(++orderId).setMarket(MARKET).setGpus(1).setPrice(PRICE)), E2e.TIMEOUT).getReason());
    }

    /** Sends a bid; true when it is acknowledged, false when refused (the disk is still short). */
    private boolean bidAccepted(final long orderId)
    {
        try
        {
            final Response r = renter.call(Envelope.newBuilder().setPlaceBid(PlaceBid.newBuilder()
                .setOrderId(orderId).setMarket(MARKET).setGpus(1).setPrice(PRICE)), E2e.TIMEOUT);
            if (r.getReason() == Reason.UNAVAILABLE)
            {
                Thread.sleep(20);
                return false;
            }
            assertEquals(Reason.REASON_OK, r.getReason(), r::toString);
            return true;
        }
        catch (final Exception ex)
        {
            throw new AssertionError(ex);
        }
    }
}
