package io.gpux.gateway.auth;

import io.gpux.proto.v1.SessionErrorCode;
import io.gpux.gateway.metrics.GatewayCounters;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.status.AtomicCounter;

import java.net.InetAddress;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Throttles failed logins, per source address and per key id: each has a token bucket of
 * {@code burst} failures that refills at {@code failuresPerSecond}; every failed login takes a token
 * from both. While either bucket is empty, a login is refused with LOGIN_THROTTLED before its
 * signature is checked (the refusal takes no token, so a client that waits the time it is told gets
 * its next try). Successful logins cost nothing: many sessions from one address (a market maker, a
 * simulator) are limited by the session limits, not here.
 *
 * <p>Failures and refusals are counted ({@link #failed()}, {@link #throttled()}, {@link #overSessionLimit()}) and logged, at most
 * one line per {@code logInterval} (the first at once, then a summary of what came since), so a
 * flood cannot flood the log. Time comes from the injected clock; one lock, on the login path only.
 */
public final class LoginThrottle
{
    /** Buckets kept at most, per kind; past it the full (idle) ones are dropped, they hold nothing. */
    static final int MAX_TRACKED = 1 << 16;

    private final long nanosPerToken;
    private final long burstNanos;
    private final NanoClock clock;
    private final long logIntervalNanos;
    private final Consumer<String> log;
    private final Map<InetAddress, long[]> byAddress = new HashMap<>();
    private final Map<Long, long[]> byKey = new HashMap<>();
    private final AtomicCounter failed;
    private final AtomicCounter throttled;
    private final AtomicCounter overLimit;
    private long lastLogAt;
    private boolean loggedOnce;
    private long failedSinceLog;
    private long throttledSinceLog;
    private long overLimitSinceLog;

    public LoginThrottle(
        final long failuresPerSecond, final long burst, final NanoClock clock, final long logIntervalMs,
        final Consumer<String> log)
    {
        this(failuresPerSecond, burst, clock, logIntervalMs, log, GatewayCounters.inMemory());
    }

    /** A throttle that counts its failures and refusals in the gateway's counters. */
    public LoginThrottle(
        final long failuresPerSecond, final long burst, final NanoClock clock, final long logIntervalMs,
        final Consumer<String> log, final GatewayCounters counters)
    {
        if (failuresPerSecond < 1 || burst < 1 || logIntervalMs < 0)
        {
            throw new IllegalArgumentException("login throttle: rate and burst must be positive");
        }
        this.nanosPerToken = Math.max(1, TimeUnit.SECONDS.toNanos(1) / failuresPerSecond);
        this.burstNanos = nanosPerToken * burst;
        this.clock = clock;
        this.logIntervalNanos = TimeUnit.MILLISECONDS.toNanos(logIntervalMs);
        this.log = log;
        failed = counters.loginsFailed;
        throttled = counters.loginsThrottled;
        overLimit = counters.loginsOverSessionLimit;
    }

    /**
     * Before a login is checked: null to go on, or why it is refused (its address or its key has
     * used up its failures; the message says when to retry).
     */
    public synchronized String check(final InetAddress address, final long keyId)
    {
        final long now = clock.nanoTime();
        final long addressWait = wait(byAddress.get(address), now);
        final long keyWait = wait(byKey.get(keyId), now);
        if (addressWait <= 0 && keyWait <= 0)
        {
            return null;
        }
        throttled.increment();
        throttledSinceLog++;
        final String message = "too many failed logins from " + (addressWait > 0 ? "this address" : "this key") +
            ": retry in " + Math.max(1, TimeUnit.NANOSECONDS.toMillis(Math.max(addressWait, keyWait))) + " ms";
        maybeLog(now, address, keyId, message);
        return message;
    }

    /** A login from {@code address} with {@code keyId} failed its check: both buckets lose a token. */
    public synchronized void onFailure(
        final InetAddress address, final long keyId, final SessionErrorCode code, final String message)
    {
        final long now = clock.nanoTime();
        failed.increment();
        failedSinceLog++;
        take(bucket(byAddress, address, now), now);
        take(bucket(byKey, keyId, now), now);
        maybeLog(now, address, keyId, code + " " + message);
    }

    /**
     * A login that passed its check found its account or the server at its session limit: counted and
     * logged like the failures (its credentials were good, so it takes no token).
     */
    public synchronized void onSessionLimit(final InetAddress address, final long keyId, final String message)
    {
        overLimit.increment();
        overLimitSinceLog++;
        maybeLog(clock.nanoTime(), address, keyId, "SESSION_LIMIT " + message);
    }

    /** Logins refused so far because a session limit was reached. */
    public long overSessionLimit()
    {
        return overLimit.get();
    }

    /** Failed logins so far. */
    public long failed()
    {
        return failed.get();
    }

    /** Logins refused unchecked so far, their address or key having failed too often. */
    public long throttled()
    {
        return throttled.get();
    }

    /** Nanoseconds until the bucket has a token (at most 0: it has one now); a missing bucket is full. */
    private long wait(final long[] emptyAt, final long now)
    {
        return emptyAt == null ? 0 : emptyAt[0] + nanosPerToken - now;
    }

    private void take(final long[] emptyAt, final long now)
    {
        // differences, not comparisons, of nanoTime values: they may wrap
        if (emptyAt[0] - (now - burstNanos) < 0)
        {
            emptyAt[0] = now - burstNanos;
        }
        emptyAt[0] += nanosPerToken;
    }

    private <K> long[] bucket(final Map<K, long[]> buckets, final K key, final long now)
    {
        long[] b = buckets.get(key);
        if (b == null)
        {
            if (buckets.size() >= MAX_TRACKED)
            {
                buckets.values().removeIf(v -> v[0] - (now - burstNanos) <= 0);
            }
            b = new long[] {now - burstNanos};
            if (buckets.size() < MAX_TRACKED)
            {
                buckets.put(key, b);
            }
        }
        return b;
    }

    private void maybeLog(final long now, final InetAddress address, final long keyId, final String what)
    {
        if (loggedOnce && now - lastLogAt < logIntervalNanos)
        {
            return;
        }
        final String since = loggedOnce ? " in the last " + TimeUnit.NANOSECONDS.toSeconds(now - lastLogAt) + " s" : "";
        log.accept("logins: " + failedSinceLog + " failed, " + throttledSinceLog + " throttled, " + overLimitSinceLog +
            " over a session limit" + since + " (latest: " + (address == null ? "?" : address.getHostAddress()) + ", key " +
            keyId + ": " + what + "); in all " + failed.get() + " failed, " + throttled.get() + " throttled, " +
            overLimit.get() + " over a session limit");
        loggedOnce = true;
        lastLogAt = now;
        failedSinceLog = 0;
        throttledSinceLog = 0;
        overLimitSinceLog = 0;
    }
}
