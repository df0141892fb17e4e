package io.gpux.engine.timer;

import java.util.Arrays;

/** A binary min-heap of timers by (due time, creation sequence), with removal; timers are pooled. */
public final class TimerQueue
{
    private Timer[] heap = new Timer[256];
    private int size;
    private long nextSeq = 1;
    private Timer[] pool = new Timer[256];
    private int poolSize;

    public int size()
    {
        return size;
    }

    public Timer peek()
    {
        return size == 0 ? null : heap[0];
    }

    public Timer schedule(final long dueMs, final int kind, final Object target)
    {
        final Timer t = poolSize == 0 ? new Timer() : pool[--poolSize];
        t.dueMs = dueMs;
        t.seq = nextSeq++;
        t.kind = kind;
        t.target = target;
        if (size == heap.length)
        {
            heap = Arrays.copyOf(heap, size * 2);
        }
        heap[size] = t;
        t.heapIndex = size;
        size++;
        siftUp(t.heapIndex);
        return t;
    }

    /** Removes the earliest timer; the caller hands it back with {@link #recycle(Timer)}. */
    public Timer poll()
    {
        final Timer top = heap[0];
        removeAt(0);
        return top;
    }

    /** Cancels a scheduled timer and recycles it. Null-safe. */
    public void cancel(final Timer t)
    {
        if (t != null && t.heapIndex >= 0)
        {
            removeAt(t.heapIndex);
            recycle(t);
        }
    }

    public void recycle(final Timer t)
    {
        t.target = null;
        t.heapIndex = -1;
        if (poolSize == pool.length)
        {
            pool = Arrays.copyOf(pool, poolSize * 2);
        }
        pool[poolSize++] = t;
    }

    /** Timers in firing order (a copy), for hashing and snapshots. */
    public Timer[] sorted()
    {
        final Timer[] copy = Arrays.copyOf(heap, size);
        Arrays.sort(copy, (a, b) -> a.dueMs != b.dueMs ? Long.compare(a.dueMs, b.dueMs) : Long.compare(a.seq, b.seq));
        return copy;
    }

    public long nextSeq()
    {
        return nextSeq;
    }

    /** Restores a timer from a snapshot, with its original creation sequence. */
    public Timer restore(final long dueMs, final long seq, final int kind, final Object target)
    {
        final Timer t = poolSize == 0 ? new Timer() : pool[--poolSize];
        t.dueMs = dueMs;
        t.seq = seq;
        t.kind = kind;
        t.target = target;
        if (size == heap.length)
        {
            heap = Arrays.copyOf(heap, size * 2);
        }
        heap[size] = t;
        t.heapIndex = size;
        size++;
        siftUp(t.heapIndex);
        return t;
    }

    public void nextSeq(final long value)
    {
        nextSeq = value;
    }

    private void removeAt(final int i)
    {
        final Timer removed = heap[i];
        size--;
        removed.heapIndex = -1;
        if (i == size)
        {
            heap[size] = null;
            return;
        }
        final Timer last = heap[size];
        heap[size] = null;
        heap[i] = last;
        last.heapIndex = i;
        siftDown(i);
        if (last.heapIndex == i)
        {
            siftUp(i);
        }
    }

    private static boolean less(final Timer a, final Timer b)
    {
        return a.dueMs < b.dueMs || (a.dueMs == b.dueMs && a.seq < b.seq);
    }

    private void siftUp(int i)
    {
        final Timer t = heap[i];
        while (i > 0)
        {
            final int parent = (i - 1) >>> 1;
            final Timer p = heap[parent];
            if (!less(t, p))
            {
                break;
            }
            heap[i] = p;
            p.heapIndex = i;
            i = parent;
        }
        heap[i] = t;
        t.heapIndex = i;
    }

    private void siftDown(int i)
    {
        final Timer t = heap[i];
        final int half = size >>> 1;
        while (i < half)
        {
            int child = 2 * i + 1;
            final int right = child + 1;
            if (right < size && less(heap[right], heap[child]))
            {
                child = right;
            }
            if (!less(heap[child], t))
            {
                break;
            }
            heap[i] = heap[child];
            heap[i].heapIndex = i;
            i = child;
        }
        heap[i] = t;
        t.heapIndex = i;
    }
}
