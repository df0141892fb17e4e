package io.gpux.engine;

import io.gpux.engine.command.Command;
import io.gpux.engine.event.RejectReason;
import org.agrona.collections.Long2LongHashMap;
import org.agrona.collections.LongLongConsumer;

import java.util.Arrays;

/**
 * API keys, the KEY command (docs/market-rules.md section 13): which account each key id belongs to and
 * whether it is revoked. The gateway derives a key's secret from its id and a master key kept outside
 * the journal, so the engine holds no secret, and a gateway restarted from the journal (or a snapshot)
 * learns every live key from the engine.
 *
 * <p>One map: key id to account id for a live key, to the negated account id for a revoked one. A
 * revoked id stays taken, so a key id, and the secret derived from it, never passes to another account.
 * Account ids are positive (0 is "no account").
 */
final class ApiKeys
{
    private static final long MISSING = 0;

    private final MatchingEngine engine;
    private final Long2LongHashMap owners = new Long2LongHashMap(MISSING);

    ApiKeys(final MatchingEngine engine)
    {
        this.engine = engine;
    }

    /** Adds a key, or revokes one with {@code revoke=true}; prints nothing on success. */
    void key(final Command cmd)
    {
        if (!engine.accounts.containsKey(cmd.accountId))
        {
            engine.out.rejected(cmd, RejectReason.UNKNOWN_ACCOUNT);
            return;
        }
        if (cmd.revoke)
        {
            revoke(cmd);
        }
        else
        {
            add(cmd);
        }
    }

    private void add(final Command cmd)
    {
        if (cmd.keyId <= 0 || cmd.accountId <= 0)
        {
            engine.out.rejected(cmd, RejectReason.INVALID_PARAMETER);
            return;
        }
        if (owners.containsKey(cmd.keyId))
        {
            engine.out.rejected(cmd, RejectReason.DUPLICATE_ID);
            return;
        }
        owners.put(cmd.keyId, cmd.accountId);
    }

    private void revoke(final Command cmd)
    {
        // unknown, revoked (negative) and another account's key all answer the same: never reveal whose a key is
        if (cmd.accountId <= 0 || owners.get(cmd.keyId) != cmd.accountId)
        {
            engine.out.rejected(cmd, RejectReason.UNKNOWN_KEY);
            return;
        }
        owners.put(cmd.keyId, -cmd.accountId);
    }

    /** @return the account of a live key, or 0 if the key is unknown or revoked. */
    long account(final long keyId)
    {
        final long owner = owners.get(keyId);
        return owner > 0 ? owner : 0;
    }

    /** Calls {@code consumer} with (key id, account id) for every live key, in key id order. */
    void forEachLive(final LongLongConsumer consumer)
    {
        for (final long keyId : sortedKeyIds())
        {
            final long owner = owners.get(keyId);
            if (owner > 0)
            {
                consumer.accept(keyId, owner);
            }
        }
    }

    /** The highest key id ever added (revoked included), or 0: ids are never reused. */
    long maxKeyId()
    {
        long max = 0;
        final Long2LongHashMap.KeyIterator it = owners.keySet().iterator();
        while (it.hasNext())
        {
            max = Math.max(max, it.nextValue());
        }
        return max;
    }

    /** Every key id ever added, revoked ones included, ascending: the canonical order of hash and snapshot. */
    long[] sortedKeyIds()
    {
        final long[] ids = new long[owners.size()];
        final Long2LongHashMap.KeyIterator it = owners.keySet().iterator();
        for (int i = 0; it.hasNext(); i++)
        {
            ids[i] = it.nextValue();
        }
        Arrays.sort(ids);
        return ids;
    }

    /** The stored value of a key: the account id, negated if revoked, or 0 if never added. */
    long stored(final long keyId)
    {
        return owners.get(keyId);
    }

    /** Puts back a stored value (snapshot restore). */
    void restore(final long keyId, final long stored)
    {
        owners.put(keyId, stored);
    }

    int size()
    {
        return owners.size();
    }
}
