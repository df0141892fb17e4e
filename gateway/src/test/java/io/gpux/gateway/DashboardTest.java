package io.gpux.gateway;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gpux.gateway.dashboard.Dashboard;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.PlaceBid;
import io.gpux.proto.v1.RevokeKey;
import io.gpux.proto.v1.Role;
import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The web dashboard over HTTP: the page, the figures as JSON and as Server-Sent Events, following what a
 * client did (a bid on the book, the sessions); a port in use fails the start in one line. The page in a
 * real browser, with a trade, is the client module's DashboardBrowserTest.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DashboardTest
{
    private static final String MARKET = "RTX4090-24G";
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void thePageTheStateAndTheEventsShowTheBookAndTheHealth() throws Exception
    {
        try (TestExchange ex = TestExchange.start(c -> c.httpPort(0).heartbeatIntervalMs(60_000));
             RawConnection admin = ex.login(ex.admin))
        {
            final String base = "http://127.0.0.1:" + ex.exchange.httpPort();
            final TestExchange.Key key = TestExchange.account(admin, "renter", 1_000_000_000L, Role.RENTER);
            try (RawConnection renter = ex.login(key))
            {
                TestExchange.ok(renter, Envelope.newBuilder().setPlaceBid(PlaceBid.newBuilder().setOrderId(1).setMarket(MARKET)
                    .setGpus(3).setPrice(2_500)));
                final HttpClient http = HttpClient.newHttpClient();
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                JsonNode market;
                while (!(market = market(get(http, base + "/state").body(), MARKET)).path("bids").path(0).path("price")
                    .asText().equals("2500"))
                {
                    assertTrue(System.nanoTime() < deadline, "the bid never reached the dashboard: " + market);
                    Thread.sleep(20);
                }
                assertEquals(3, market.path("bids").path(0).path("gpus").asInt(), market::toString);
                assertEquals(0, market.path("asks").size(), market::toString);
                assertEquals(0, market.path("trades").size(), market::toString);
                final JsonNode state = JSON.readTree(get(http, base + "/state").body());
                assertEquals(2, state.path("health").path("sessions").asInt(), "the admin and the renter: " + state);
                assertTrue(state.path("health").path("commands").asLong() >= 3, state::toString);
                assertEquals(-1, state.path("health").path("snapshotAgeMs").asLong(), "no snapshot yet");

                // the stream: the current figures at once, as one event
                final HttpResponse<InputStream> events = http.send(HttpRequest.newBuilder(URI.create(base + "/events")).build(),
                    HttpResponse.BodyHandlers.ofInputStream());
                assertEquals(200, events.statusCode());
                assertEquals("text/event-stream", events.headers().firstValue("Content-Type").orElse(""));
                try (BufferedReader lines = new BufferedReader(new InputStreamReader(events.body(), StandardCharsets.UTF_8)))
                {
                    String line;
                    while ((line = lines.readLine()) != null && !line.startsWith("data: "))
                    {
                        assertTrue(line.isEmpty() || line.startsWith("retry: "), line);
                    }
                    assertTrue(line != null, "an event");
                    final JsonNode pushed = market(line.substring("data: ".length()), MARKET);
                    assertEquals(2500, pushed.path("bids").path(0).path("price").asLong(), pushed::toString);
                }

                final HttpResponse<String> page = get(http, base + "/");
                assertEquals(200, page.statusCode());
                assertTrue(page.headers().firstValue("Content-Type").orElse("").startsWith("text/html"));
                assertTrue(page.body().contains("new EventSource(\"events\")"), "the page listens to the events");
                assertEquals(404, get(http, base + "/nothing-here").statusCode());

                // the account's own view: only with its key, then by the cookie the sign-in set
                assertEquals(401, get(http, base + "/account").statusCode());
                assertEquals(401, post(http, base + "/signin", key.id() + ":" + "0".repeat(64)).statusCode());
                final HttpResponse<String> signedIn = post(http, base + "/signin", key.id() + ":" + key.secret());
                assertEquals(200, signedIn.statusCode(), signedIn.body());
                final String cookie = signedIn.headers().firstValue("Set-Cookie").orElseThrow().split(";")[0];
                final HttpResponse<String> own = http.send(HttpRequest.newBuilder(URI.create(base + "/account"))
                    .header("Cookie", cookie).build(), HttpResponse.BodyHandlers.ofString());
                assertEquals(200, own.statusCode(), own.body());
                final JsonNode account = JSON.readTree(own.body());
                assertEquals(1_000_000_000L, account.path("balance").asLong(), own.body());
                assertEquals(1, account.path("orders").size(), own.body());
                assertEquals(2500, account.path("orders").path(0).path("price").asLong(), own.body());
                assertEquals("BID", account.path("orders").path(0).path("side").asText(), own.body());
                final String cookie2 = post(http, base + "/signin", key.id() + ":" + key.secret()).headers()
                    .firstValue("Set-Cookie").orElseThrow().split(";")[0];
                assertEquals(200, http.send(HttpRequest.newBuilder(URI.create(base + "/signout")).header("Cookie", cookie)
                    .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString()).statusCode());
                assertEquals(401, account(http, base, cookie), "signed out");
                assertEquals(200, account(http, base, cookie2), "another sign-in of the key");
                TestExchange.ok(admin, Envelope.newBuilder().setRevokeKey(RevokeKey.newBuilder().setKeyId(key.id())));
                assertEquals(401, account(http, base, cookie2), "the key is revoked");
            }
        }
    }

    @Test
    void wrongSecretsAtTheSignInUseUpTheLoginThrottleAsLoginsDo() throws Exception
    {
        final CachedNanoClock clock = new CachedNanoClock();
        clock.update(1_000_000_000L);
        try (TestExchange ex = TestExchange.start(c -> c.httpPort(0).heartbeatIntervalMs(60_000).nanoClock(clock)
                .loginFailureBurst(3).loginFailuresPerSecond(1));
             RawConnection admin = ex.login(ex.admin))
        {
            final String base = "http://127.0.0.1:" + ex.exchange.httpPort();
            final TestExchange.Key key = TestExchange.account(admin, "renter", 1_000_000_000L, Role.RENTER);
            final HttpClient http = HttpClient.newHttpClient();
            for (int i = 0; i < 3; i++)
            {
                assertEquals(401, post(http, base + "/signin", key.id() + ":" + "0".repeat(64)).statusCode(), "try " + i);
            }
            final HttpResponse<String> throttled = post(http, base + "/signin", key.id() + ":" + key.secret());
            assertEquals(429, throttled.statusCode(), "the right secret too, while the failures' bucket is empty");
            assertTrue(throttled.body().startsWith("too many failed logins"), throttled.body());

            clock.advance(TimeUnit.SECONDS.toNanos(1));
            assertEquals(200, post(http, base + "/signin", key.id() + ":" + key.secret()).statusCode(),
                "a second later one try is back");
        }
    }

    @Test
    void eventStreamsAreBounded() throws Exception
    {
        try (TestExchange ex = TestExchange.start(c -> c.httpPort(0).heartbeatIntervalMs(60_000)))
        {
            final URI events = URI.create("http://127.0.0.1:" + ex.exchange.httpPort() + "/events");
            final HttpClient http = HttpClient.newHttpClient();
            final List<InputStream> open = new ArrayList<>();
            try
            {
                for (int i = 0; i < Dashboard.MAX_STREAMS; i++)
                {
                    final HttpResponse<InputStream> stream = http.send(HttpRequest.newBuilder(events).build(),
                        HttpResponse.BodyHandlers.ofInputStream());
                    assertEquals(200, stream.statusCode());
                    open.add(stream.body());
                    // an open stream counts once its first event is written
                    assertTrue(new BufferedReader(new InputStreamReader(stream.body(), StandardCharsets.UTF_8)).readLine() != null);
                }
                final HttpResponse<String> refused = http.send(HttpRequest.newBuilder(events).build(),
                    HttpResponse.BodyHandlers.ofString());
                assertEquals(503, refused.statusCode(), refused.body());
                assertTrue(refused.body().startsWith("the dashboard has " + Dashboard.MAX_STREAMS + " viewers already"), refused.body());
            }
            finally
            {
                for (final InputStream in : open)
                {
                    in.close();
                }
            }
        }
    }

    @Test
    void anHttpPortInUseFailsTheStartInOneLine() throws Exception
    {
        TestExchange.assertPortInUseFailsTheStart(ExchangeContext::httpPort, "cannot serve the dashboard", "--http-port",
            Exchange::httpPort);
    }

    private static HttpResponse<String> get(final HttpClient http, final String url) throws Exception
    {
        return http.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static int account(final HttpClient http, final String base, final String cookie) throws Exception
    {
        return http.send(HttpRequest.newBuilder(URI.create(base + "/account")).header("Cookie", cookie).build(),
            HttpResponse.BodyHandlers.ofString()).statusCode();
    }

    private static HttpResponse<String> post(final HttpClient http, final String url, final String body) throws Exception
    {
        return http.send(HttpRequest.newBuilder(URI.create(url)).POST(HttpRequest.BodyPublishers.ofString(body)).build(),
            HttpResponse.BodyHandlers.ofString());
    }

    /** The market's figures in a state document (a missing node when it is not there yet). */
    private static JsonNode market(final String state, final String symbol) throws Exception
    {
        for (final JsonNode m : JSON.readTree(state).path("markets"))
        {
            if (m.path("symbol").asText().equals(symbol))
            {
                return m;
            }
        }
        return JSON.missingNode();
    }
}
