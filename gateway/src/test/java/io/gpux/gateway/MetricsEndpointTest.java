package io.gpux.gateway;

import io.gpux.proto.v1.Deposit;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.PlaceBid;
import io.gpux.proto.v1.Reason;
import io.gpux.proto.v1.Role;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The metrics endpoint scraped over HTTP and its Prometheus text parsed: the figures follow what the
 * clients did (sessions, commands, the gateway's and the engine's rejects by reason, the book's best bid).
 * The two that wait for a sampled figure wait side by side, each with its own exchange sampling every
 * {@link #SAMPLE_MS} ms (once a second by default).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MetricsEndpointTest
{
    private static final String MARKET = "RTX4090-24G";
    private static final long SAMPLE_MS = 100;

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void aScrapeShowsTheSessionsTheCommandsTheRejectsAndTheBook() throws Exception
    {
        try (TestExchange ex = TestExchange.start(c -> c.metricsPort(0).ratePerSecond(1).rateBurst(3).heartbeatIntervalMs(60_000)
            .counterSampleMs(SAMPLE_MS));
             RawConnection admin = ex.login(ex.admin))
        {
            assertTrue(ex.exchange.metricsPort() > 0);
            final TestExchange.Key key = TestExchange.account(admin, "renter", 1_000_000_000L, Role.RENTER);
            try (RawConnection renter = ex.login(key))
            {
                // in one write: the burst of 3 goes to the first three, the rest find the bucket empty
                final List<Reason> answers = answers(renter, List.of(bid(1, MARKET, 3, 2_500), bid(2, MARKET, 1000, 100_000_000),
                    bid(3, "NO-SUCH", 1, 1), bid(4, "NO-SUCH", 1, 1), bid(5, "NO-SUCH", 1, 1), bid(6, "NO-SUCH", 1, 1)));
                assertEquals(List.of(Reason.REASON_OK, Reason.INSUFFICIENT_FUNDS, Reason.UNKNOWN_MARKET), answers.subList(0, 3));
                final long limited = answers.stream().filter(r -> r == Reason.RATE_LIMITED).count();
                assertTrue(limited >= 2, answers::toString);

                final String text = awaitScrape(ex.exchange.metricsPort(), "gpux_market_best_bid{market=\"" + MARKET + "\"}",
                    2_500, Map.of("gpux_market_bid_gpus{market=\"" + MARKET + "\"}", 3.0));
                final Map<String, Double> m = parse(text);
                assertTrue(text.contains("# TYPE gpux_commands_total counter"), text);
                assertTrue(text.contains("# HELP gpux_sessions sessions logged in now"), text);
                assertEquals(2.0, m.get("gpux_sessions"), "the admin and the renter");
                assertEquals(2.0, m.get("gpux_connections"));
                assertEquals(1.0, m.get("gpux_engine_rejects_total{reason=\"INSUFFICIENT_FUNDS\"}"));
                assertEquals(0.0, m.get("gpux_engine_rejects_total{reason=\"UNKNOWN_ORDER\"}"));
                assertEquals((double)(4 - limited), m.get("gpux_gateway_rejects_total{reason=\"UNKNOWN_MARKET\"}"));
                assertEquals((double)limited, m.get("gpux_gateway_rejects_total{reason=\"RATE_LIMITED\"}"));
                assertTrue(m.get("gpux_requests_total") >= 6);
                assertTrue(m.get("gpux_commands_total") >= 6, "the admin's commands and the two bids");
                assertEquals(3.0, m.get("gpux_market_bid_gpus{market=\"" + MARKET + "\"}"));
                assertEquals(0.0, m.get("gpux_market_best_ask{market=\"" + MARKET + "\"}"));
                assertEquals(m.get("gpux_event_sequence"), m.get("gpux_egress_event_sequence") + m.get("gpux_egress_backlog_events"));
                assertEquals(-1.0, m.get("gpux_snapshot_age_ms"), "no snapshot yet");
                assertTrue(m.get("gpux_input_ring_capacity") > 0);
                assertTrue(m.containsKey("gpux_batch_ns{quantile=\"0.99\"}"), text);
                assertNotEquals(null, m.get("gpux_login_failures_total{reason=\"THROTTLED\"}"));
            }
        }
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void commandRoundTripsAreTimed() throws Exception
    {
        try (TestExchange ex = TestExchange.start(c -> c.metricsPort(0).heartbeatIntervalMs(60_000)
            .metricsSampleIntervalMs(SAMPLE_MS));
             RawConnection admin = ex.login(ex.admin))
        {
            TestExchange.account(admin, "payee", 0, Role.RENTER);
            for (int i = 0; i < 3 * SessionPublisher.TIMED_COMMAND_EVERY; i++)
            {
                TestExchange.ok(admin, Envelope.newBuilder().setDeposit(Deposit.newBuilder().setAccount("payee").setAmount(1)));
            }
            final HttpClient http = HttpClient.newHttpClient();
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            Map<String, Double> m;
            // sampled every SAMPLE_MS: a window holds only the commands timed in it, so on a slow machine the
            // windows of the commands above may have passed before the first read; timed commands keep coming
            while ((m = parse(http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + ex.exchange.metricsPort() +
                "/metrics")).build(), HttpResponse.BodyHandlers.ofString()).body())).get("gpux_request_window_count") == 0)
            {
                assertTrue(System.nanoTime() < deadline, "no command was timed");
                for (int i = 0; i < SessionPublisher.TIMED_COMMAND_EVERY; i++)
                {
                    TestExchange.ok(admin, Envelope.newBuilder().setDeposit(Deposit.newBuilder().setAccount("payee").setAmount(1)));
                }
                Thread.sleep(50);
            }
            final double max = m.get("gpux_request_ns{quantile=\"1\"}");
            final double median = m.get("gpux_request_ns{quantile=\"0.5\"}");
            assertTrue(max > 0 && median > 0 && median <= max, m::toString);
            assertTrue(max < TimeUnit.SECONDS.toNanos(20), "a round trip within the test's own time: " + max);
        }
    }

    @Test
    void aMetricsPortInUseFailsTheStartInOneLineAndLeavesTheDirectoryFree() throws Exception
    {
        TestExchange.assertPortInUseFailsTheStart(ExchangeContext::metricsPort, "cannot serve metrics", "--metrics-port",
            Exchange::metricsPort);
    }

    /** Sends the requests in one write; the answers' reasons in request order (they may arrive in another). */
    private static List<Reason> answers(final RawConnection c, final List<Envelope.Builder> requests) throws IOException
    {
        final long first = c.requests(requests);
        final Map<Long, Reason> byId = new HashMap<>();
        while (byId.size() < requests.size())
        {
            final Envelope e = c.read();
            assertNotNull(e, "closed after " + byId.size() + " answers");
            if (e.getBodyCase() == Envelope.BodyCase.RESPONSE && e.getRequestId() >= first)
            {
                byId.put(e.getRequestId(), e.getResponse().getReason());
            }
        }
        final List<Reason> inOrder = new ArrayList<>();
        for (long id = first; id < first + requests.size(); id++)
        {
            inOrder.add(byId.get(id));
        }
        return inOrder;
    }

    private static Envelope.Builder bid(final long orderId, final String market, final int gpus, final long price)
    {
        return Envelope.newBuilder().setPlaceBid(PlaceBid.newBuilder().setOrderId(orderId).setMarket(market).setGpus(gpus)
            .setPrice(price));
    }

    /**
     * Scrapes until {@code sample} has {@code value} and each of {@code others} its value (the markets are sampled
     * every {@link #SAMPLE_MS} ms, one counter after another, so a scrape may fall inside a sample); returns that scrape.
     */
    private static String awaitScrape(final int port, final String sample, final double value,
        final Map<String, Double> others) throws Exception
    {
        final HttpClient http = HttpClient.newHttpClient();
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true)
        {
            final HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                .build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, r.statusCode());
            final Map<String, Double> m = parse(r.body());
            final Double v = m.get(sample);
            if (v != null && v == value && others.entrySet().stream().allMatch(e -> e.getValue().equals(m.get(e.getKey()))))
            {
                return r.body();
            }
            assertTrue(System.nanoTime() < deadline, "never " + sample + " " + value + " in:\n" + r.body());
            Thread.sleep(100);
        }
    }

    /** The Prometheus text format's samples: {@code name{labels}} to value (comments left out). */
    static Map<String, Double> parse(final String text) throws IOException
    {
        final Map<String, Double> samples = new HashMap<>();
        final List<String> bad = new ArrayList<>();
        for (final String line : text.split("\n"))
        {
            if (line.isBlank() || line.startsWith("#"))
            {
                continue;
            }
            final int space = line.lastIndexOf(' ');
            if (space < 0)
            {
                bad.add(line);
                continue;
            }
            samples.put(line.substring(0, space), Double.parseDouble(line.substring(space + 1)));
        }
        if (!bad.isEmpty())
        {
            throw new IOException("not Prometheus text: " + bad);
        }
        return samples;
    }
}
