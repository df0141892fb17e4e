package io.gpux.gateway.session;

import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.concurrent.status.AtomicCounter;

import java.util.ArrayList;
import java.util.List;
import java.util.function.LongPredicate;

/**
 * The gateway's logged-in sessions, by account and by key: it holds the session limits (per account
 * and in all) and ends a revoked key's sessions. Used at login, logout and revoke only, never per
 * request, so one lock guards it.
 *
 * <p>A revoke marks the key's sessions {@linkplain Session#revoked() revoked} in the same step (under
 * the same lock) as the key stops being live, and the gateway publishes the revoke only after that:
 * a session cannot log in with the key once it is marked, and a marked session publishes nothing
 * more, so every command of the key that the engine applies was published before the revoke.
 */
public final class SessionRegistry
{
    /** Why a login could not take a session, or null when it got one. */
    public record Refusal(String message)
    {
    }

    private final int maxPerAccount;
    private final int maxTotal;
    private final int maxMarketData;
    private final Long2ObjectHashMap<List<Session>> byAccount = new Long2ObjectHashMap<>();
    private final Long2ObjectHashMap<List<Session>> byKey = new Long2ObjectHashMap<>();
    private int total;

    private final AtomicCounter sessionsGauge;

    public SessionRegistry(final int maxPerAccount, final int maxTotal)
    {
        this(maxPerAccount, maxTotal, maxPerAccount, null);
    }

    /**
     * @param maxMarketData market-data sessions (no account, no key) allowed in all; 0: none.
     * @param sessionsGauge where the registry shows how many sessions it holds (null: nowhere).
     */
    public SessionRegistry(final int maxPerAccount, final int maxTotal, final int maxMarketData,
        final AtomicCounter sessionsGauge)
    {
        this.sessionsGauge = sessionsGauge;
        if (maxPerAccount < 1 || maxTotal < 1 || maxMarketData < 0)
        {
            throw new IllegalArgumentException("session limits must be positive");
        }
        this.maxPerAccount = maxPerAccount;
        this.maxTotal = maxTotal;
        this.maxMarketData = maxMarketData;
    }

    /**
     * Takes a place for a session that has just authenticated.
     *
     * @param keyLive whether the session's key is still live (checked under the lock that revokes take).
     * @return null when it is registered; else why not (the key was revoked meanwhile, or a limit).
     */
    public synchronized Refusal register(final Session session, final LongPredicate keyLive)
    {
        if (!session.marketDataOnly() && !keyLive.test(session.keyId))
        {
            return new Refusal("the key was revoked");
        }
        if (total >= maxTotal)
        {
            return new Refusal("the server has its maximum of " + maxTotal + " sessions: retry later");
        }
        final List<Session> ofAccount = byAccount.get(session.accountId);
        if (session.marketDataOnly() && (ofAccount == null ? 0 : ofAccount.size()) >= maxMarketData)
        {
            return new Refusal(maxMarketData == 0 ? "this exchange takes no market-data logins: log in with a key"
                : "the server has its maximum of " + maxMarketData + " market-data sessions: retry later");
        }
        if (!session.marketDataOnly() && ofAccount != null && ofAccount.size() >= maxPerAccount)
        {
            return new Refusal("account " + session.accountName + " has its maximum of " + maxPerAccount +
                " sessions: log one out first");
        }
        byAccount.computeIfAbsent(session.accountId, k -> new ArrayList<>(2)).add(session);
        byKey.computeIfAbsent(session.keyId, k -> new ArrayList<>(2)).add(session);
        total++;
        showTotal();
        return null;
    }

    /** A registered session ended (idempotent). */
    public synchronized void unregister(final Session session)
    {
        if (remove(byAccount, session.accountId, session))
        {
            remove(byKey, session.keyId, session);
            total--;
            showTotal();
        }
    }

    private void showTotal()
    {
        if (sessionsGauge != null)
        {
            sessionsGauge.setRelease(total);
        }
    }

    /**
     * Marks every session of a key revoked, after {@code revokeKey} has made the key no longer live
     * (both under the lock, so no login of the key slips between them).
     *
     * @return the sessions marked.
     */
    public synchronized List<Session> revokeKey(final long keyId, final Runnable revokeKey)
    {
        revokeKey.run();
        final List<Session> sessions = byKey.get(keyId);
        if (sessions == null)
        {
            return List.of();
        }
        for (int i = 0; i < sessions.size(); i++)
        {
            sessions.get(i).revoke();
        }
        return List.copyOf(sessions);
    }

    /** Undoes {@link #revokeKey} when the revoke could not be published: {@code restoreKey} makes the key live again. */
    public synchronized void restoreKey(final long keyId, final Runnable restoreKey)
    {
        restoreKey.run();
        final List<Session> sessions = byKey.get(keyId);
        if (sessions != null)
        {
            for (int i = 0; i < sessions.size(); i++)
            {
                sessions.get(i).restore();
            }
        }
    }

    public synchronized int sessions()
    {
        return total;
    }

    public synchronized int sessions(final long accountId)
    {
        final List<Session> list = byAccount.get(accountId);
        return list == null ? 0 : list.size();
    }

    private static boolean remove(final Long2ObjectHashMap<List<Session>> index, final long id, final Session session)
    {
        final List<Session> list = index.get(id);
        if (list == null || !list.remove(session))
        {
            return false;
        }
        if (list.isEmpty())
        {
            index.remove(id);
        }
        return true;
    }
}
