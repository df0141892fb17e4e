package io.gpux.gateway.session;

import io.gpux.engine.command.Roles;
import io.netty.channel.Channel;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * One logged-in connection. Its inbound side (requests, rate limit, the pending-request table) is
 * touched only by the connection's event loop; its outbound side (account events, answers) only by
 * the egress thread. A request's slot in the table is written before the command is published, and
 * read by the egress after the command's completion, which the input ring and the egress queue order.
 */
public final class Session
{
    /** Requests a session may have in flight; a request beyond it is answered BUSY. */
    public static final int MAX_PENDING = 1 << 14;
    private static final int MASK = MAX_PENDING - 1;

    /** What a pending request was, for what its answer needs. */
    public static final byte KIND_COMMAND = 0;
    public static final byte KIND_NEW_ACCOUNT = 1;
    public static final byte KIND_NEW_MARKET = 2;
    public static final byte KIND_NEW_MACHINE = 3;
    public static final byte KIND_NEW_KEY = 4;
    public static final byte KIND_REVOKE_KEY = 5;

    public final long id;
    public final Channel channel;
    public final long accountId;
    public final String accountName;
    public final int roles;
    public final boolean cancelOnDisconnect;

    private final long[] requestIds = new long[MAX_PENDING];
    private final byte[] kinds = new byte[MAX_PENDING];
    private final long[] assignedIds = new long[MAX_PENDING];
    private final AtomicInteger outstanding = new AtomicInteger();
    private long nextSlot;

    /** Egress side: whether the account's events now go to this session (after any resend). */
    public boolean live;
    public boolean closed;
    /**
     * Set by the egress before it closes a connection whose login it refused (too many resends): the
     * session never began, so its end cancels nothing (read by the event loop after the close).
     */
    public volatile boolean refused;

    public Session(
        final long id, final Channel channel, final long accountId, final String accountName, final int roles,
        final boolean cancelOnDisconnect)
    {
        this.id = id;
        this.channel = channel;
        this.accountId = accountId;
        this.accountName = accountName;
        this.roles = roles;
        this.cancelOnDisconnect = cancelOnDisconnect;
    }

    public boolean isAdmin()
    {
        return (roles & Roles.ADMIN) != 0;
    }

    /**
     * Takes a pending-request slot (event loop only).
     *
     * @return the correlation to publish the command with, or 0 when too many are in flight.
     */
    public long track(final long requestId, final byte kind, final long assignedId)
    {
        if (outstanding.get() >= MAX_PENDING)
        {
            return 0;
        }
        final long slot = nextSlot++;
        final int i = (int)(slot & MASK);
        requestIds[i] = requestId;
        kinds[i] = kind;
        assignedIds[i] = assignedId;
        outstanding.incrementAndGet();
        return correlation(id, i);
    }

    /** Gives back a slot whose command could not be published (event loop only). */
    public void untrack()
    {
        nextSlot--;
        outstanding.decrementAndGet();
    }

    public static long correlation(final long sessionId, final int slot)
    {
        return sessionId << 16 | slot;
    }

    public static long sessionOf(final long correlation)
    {
        return correlation >>> 16;
    }

    public static int slotOf(final long correlation)
    {
        return (int)(correlation & MASK);
    }

    public long requestId(final int slot)
    {
        return requestIds[slot];
    }

    public byte kind(final int slot)
    {
        return kinds[slot];
    }

    public long assignedId(final int slot)
    {
        return assignedIds[slot];
    }

    /** The egress has answered a request. */
    public void completed()
    {
        outstanding.decrementAndGet();
    }

    @Override
    public String toString()
    {
        return "session " + id + " (" + accountName + ", " + channel.remoteAddress() + ")";
    }
}
