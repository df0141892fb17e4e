package io.gpux.gateway.dashboard;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import io.gpux.gateway.egress.PortfolioView;
import io.gpux.proto.v1.LeaseInfo;
import io.gpux.proto.v1.OpenOrder;
import io.gpux.proto.v1.Portfolio;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The dashboard's signed-in view, read-only: a renter or an owner signs in with an API key and reads
 * its own balance, open orders and leases. The key is checked once; the viewer then holds a random
 * cookie, and the key is looked up again at each read, so that a revoked key shows nothing more.
 */
final class AccountView
{
    /** Viewers signed in at once at most; one more signs the longest signed-in out. */
    static final int MAX_SIGNED_IN = 256;
    /** The cookie that names a signed-in viewer. */
    static final String COOKIE = "gpux_dashboard";

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Dashboard.Sources sources;
    /** Signed-in viewers: token to the key they signed in with, the oldest first. */
    private final Map<String, Long> signedIn = new LinkedHashMap<>();
    private final SecureRandom random = new SecureRandom();

    AccountView(final Dashboard.Sources sources)
    {
        this.sources = sources;
    }

    /** POST {@code KEY_ID:SECRET} (as {@code gpux} key files hold it): a cookie for the account's own view. */
    void onSignIn(final HttpExchange ex) throws IOException
    {
        if (!"POST".equals(ex.getRequestMethod()))
        {
            Dashboard.reply(ex, 405, "text/plain; charset=utf-8", "POST only\n".getBytes(StandardCharsets.UTF_8));
            return;
        }
        final String key = new String(ex.getRequestBody().readNBytes(256), StandardCharsets.UTF_8).trim();
        final int colon = key.indexOf(':');
        long account = 0;
        long keyId = 0;
        final InetAddress from = ex.getRemoteAddress().getAddress();
        if (colon > 0)
        {
            try
            {
                keyId = Long.parseLong(key.substring(0, colon));
            }
            catch (final NumberFormatException notAKeyId)
            {
                keyId = 0;
            }
        }
        final String throttled = sources.throttled(from, keyId);
        if (throttled != null)
        {
            Dashboard.reply(ex, 429, "text/plain; charset=utf-8", (throttled + "\n").getBytes(StandardCharsets.UTF_8));
            return;
        }
        if (colon > 0)
        {
            account = sources.signIn(from, keyId, key.substring(colon + 1));
        }
        if (account == 0)
        {
            Dashboard.reply(ex, 401, "text/plain; charset=utf-8",
                "unknown key or wrong secret (give KEY_ID:SECRET, as in the key file)\n".getBytes(StandardCharsets.UTF_8));
            return;
        }
        final byte[] bytes = new byte[24];
        random.nextBytes(bytes);
        final String token = HexFormat.of().formatHex(bytes);
        synchronized (signedIn)
        {
            if (signedIn.size() >= MAX_SIGNED_IN)
            {
                signedIn.remove(signedIn.keySet().iterator().next());
            }
            signedIn.put(token, keyId);
        }
        ex.getResponseHeaders().set("Set-Cookie", COOKIE + "=" + token + "; Path=/; HttpOnly; SameSite=Strict");
        Dashboard.reply(ex, 200, "text/plain; charset=utf-8", "signed in\n".getBytes(StandardCharsets.UTF_8));
    }

    void onSignOut(final HttpExchange ex) throws IOException
    {
        final String token = token(ex);
        if (token != null)
        {
            synchronized (signedIn)
            {
                signedIn.remove(token);
            }
        }
        ex.getResponseHeaders().set("Set-Cookie", COOKIE + "=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict");
        Dashboard.reply(ex, 200, "text/plain; charset=utf-8", "signed out\n".getBytes(StandardCharsets.UTF_8));
    }

    /** The signed-in viewer's own account, read-only: balance, open orders, leases, machines. */
    void onAccount(final HttpExchange ex) throws IOException
    {
        final String token = token(ex);
        final Long keyId;
        synchronized (signedIn)
        {
            keyId = token == null ? null : signedIn.get(token);
        }
        // the key is looked up each time: a key revoked since the sign-in shows nothing more
        final long account = keyId == null ? 0 : sources.keyAccount(keyId);
        if (account == 0)
        {
            Dashboard.reply(ex, 401, "text/plain; charset=utf-8", "not signed in\n".getBytes(StandardCharsets.UTF_8));
            return;
        }
        final CompletableFuture<PortfolioView> read = new CompletableFuture<>();
        if (!sources.query(engine -> read.complete(sources.portfolio(engine, account))))
        {
            Dashboard.reply(ex, 503, "text/plain; charset=utf-8", "the exchange is busy; try again\n".getBytes(StandardCharsets.UTF_8));
            return;
        }
        final Portfolio p;
        try
        {
            p = read.get(5, TimeUnit.SECONDS).encode().build();
        }
        catch (final InterruptedException | ExecutionException | TimeoutException failed)
        {
            Dashboard.reply(ex, 503, "text/plain; charset=utf-8", "the exchange did not answer; try again\n".getBytes(StandardCharsets.UTF_8));
            return;
        }
        final List<Map<String, Object>> orders = new ArrayList<>();
        for (final OpenOrder o : p.getOrdersList())
        {
            orders.add(Map.of("orderId", o.getOrderId(), "market", o.getMarket(), "side", o.getSide().name(),
                "price", o.getPrice(), "openGpus", o.getOpenGpus()));
        }
        final List<Map<String, Object>> leases = new ArrayList<>();
        for (final LeaseInfo l : p.getLeasesList())
        {
            leases.add(Map.of("leaseId", l.getLeaseId(), "market", l.getMarket(), "gpus", l.getGpus(), "price", l.getPrice(),
                "state", l.getState().name(), "renter", l.getRenter(), "startMs", l.getStartMs(), "cost", l.getCost()));
        }
        final Map<String, Object> view = new LinkedHashMap<>();
        view.put("balance", p.getBalance());
        view.put("available", p.getAvailable());
        view.put("orders", orders);
        view.put("leases", leases);
        view.put("machines", p.getMachinesCount());
        Dashboard.reply(ex, 200, "application/json", JSON.writeValueAsBytes(view));
    }

    private static String token(final HttpExchange ex)
    {
        for (final String header : ex.getRequestHeaders().getOrDefault("Cookie", List.of()))
        {
            for (final String part : header.split(";"))
            {
                final String kv = part.trim();
                if (kv.startsWith(COOKIE + "="))
                {
                    return kv.substring(COOKIE.length() + 1);
                }
            }
        }
        return null;
    }
}
