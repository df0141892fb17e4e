package io.gpux.engine.book;

import io.gpux.engine.funds.Account;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

/** The engine-wide index of open orders against a hash map, through growth and deletions that shift probe runs. */
class OrderIndexTest
{
    @Test
    void findsWhatAMapFinds()
    {
        final SplittableRandom random = new SplittableRandom(5);
        final OrderIndex index = new OrderIndex();
        final Account[] accounts = new Account[50];
        for (int i = 0; i < accounts.length; i++)
        {
            // ids 0 and Long.MIN_VALUE too: no account id may stand for an empty slot
            final long id = i == 0 ? 0 : i == 1 ? Long.MIN_VALUE : i * 7L + 1;
            accounts[i] = new Account(id, "a" + i, 0, index);
        }
        final Map<String, Order> reference = new HashMap<>();
        final List<Order> open = new ArrayList<>();
        for (int step = 0; step < 200_000; step++)
        {
            final Account account = accounts[random.nextInt(accounts.length)];
            // few client order ids, shared between accounts: collisions on both halves of the key
            final long clientOrderId = random.nextInt(step < 100_000 ? 64 : 4_000);
            final String key = account.id + "/" + clientOrderId;
            if (random.nextInt(100) < 55 || open.isEmpty())
            {
                if (!reference.containsKey(key))
                {
                    final Order o = new Order();
                    o.account = account;
                    o.clientOrderId = clientOrderId;
                    account.addOpen(o);
                    reference.put(key, o);
                    open.add(o);
                }
            }
            else
            {
                final Order o = open.remove(random.nextInt(open.size()));
                o.account.removeOpen(o);
                reference.remove(o.account.id + "/" + o.clientOrderId);
                // gone at once, whatever the backward shift moved into its slot
                assertNull(index.get(o.account.id, o.clientOrderId));
            }
            assertSame(reference.get(key), index.get(account.id, clientOrderId));
            assertSame(reference.get(key), account.openOrders.get(clientOrderId));
            if (step % 1_000 == 0)
            {
                assertEquals(reference.size(), index.size());
                for (final Order o : open)
                {
                    assertSame(o, index.get(o.account.id, o.clientOrderId));
                }
            }
        }
        int total = 0;
        for (final Account a : accounts)
        {
            total += a.openOrders.size();
        }
        assertEquals(reference.size(), total);
        assertNull(index.get(accounts[0].id, -1));
        assertNull(index.get(-7, 1), "no account, no order");
    }
}
