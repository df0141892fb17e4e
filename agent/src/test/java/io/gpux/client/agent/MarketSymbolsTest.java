package io.gpux.client.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class MarketSymbolsTest
{
    /** The exchange's rule for a market symbol (market rules, section 2). */
    private static final Pattern SYMBOL = Pattern.compile("[A-Z0-9._-]{2,32}");

    @ParameterizedTest
    @CsvSource({
        "NVIDIA H200,             143771, 141, H200-141G",
        "NVIDIA H100 80GB HBM3,   81559,  80,  H100-SXM-80G",
        "NVIDIA H100 PCIe,        81559,  80,  H100-PCIE-80G",
        "NVIDIA A100-SXM4-80GB,   81920,  80,  A100-80G",
        "NVIDIA A100 80GB PCIe,   81920,  80,  A100-80G",
        "NVIDIA L40S,             46068,  45,  L40S-48G",
        "NVIDIA GeForce RTX 4090, 24564,  24,  RTX4090-24G",
        "AMD Instinct MI300X,     196592, 192, MI300X-192G" })
    void listedGpusMapToTheirMarkets(final String name, final long mib, final long gb, final String symbol)
    {
        final GpuInfo gpu = gpu(name, mib);

        assertEquals(gb, gpu.vramGb());
        assertEquals(symbol, gpu.marketSymbol());
    }

    @ParameterizedTest
    @CsvSource({
        "NVIDIA A100-SXM4-40GB,          40536,  A100-SXM4-40G",
        "NVIDIA RTX A6000,               49140,  RTX-A6000-48G",
        "Tesla V100-SXM2-16GB,           16160,  V100-SXM2-16G",
        "NVIDIA H200 NVL,                143771, H200-NVL-141G",
        "NVIDIA H100 NVL,                95830,  H100-NVL-94G",
        "NVIDIA GeForce RTX 3090,        24576,  RTX-3090-24G",
        "AMD Radeon RX 7900 XTX,         24560,  RX-7900-XTX-24G",
        "NVIDIA RTX 6000 Ada Generation, 49140,  RTX-6000-ADA-GENERATION-48G",
        "nvidia geforce gtx 1080 ti,     11264,  GTX-1080-TI-11G",
        "'  NVIDIA   T4  ',              15360,  T4-15G",
        "???,                            8192,   GPU-8G",
        "NVIDIA,                         8192,   GPU-8G" })
    void unlistedGpusGetASymbolFromTheirName(final String name, final long mib, final String symbol)
    {
        assertEquals(symbol, gpu(name, mib).marketSymbol());
    }

    @Test
    void longNamesAreCutToTheSymbolLimit()
    {
        final String symbol = MarketSymbols.suggest("NVIDIA Extremely Long Experimental Accelerator Board X", 96);

        assertEquals("EXTREMELY-LONG-EXPERIMENTAL-96G", symbol);
        assertTrue(symbol.length() <= MarketSymbols.MAX_LENGTH);
    }

    @Test
    void everyDerivedSymbolIsValid()
    {
        final String alphabet = "abcXYZ019 -_./,()[]#@éÖ\t";
        final Random random = new Random(42);
        for (int i = 0; i < 10_000; i++)
        {
            final StringBuilder name = new StringBuilder();
            final int length = random.nextInt(60);
            for (int j = 0; j < length; j++)
            {
                name.append(alphabet.charAt(random.nextInt(alphabet.length())));
            }
            final long vramGb = random.nextInt(4) == 0 ? random.nextInt(2048) : Math.abs(random.nextLong() % 1_000_000_000_000L);
            final String symbol = MarketSymbols.suggest(name.toString(), vramGb);

            assertTrue(SYMBOL.matcher(symbol).matches(), () -> "'" + name + "' -> '" + symbol + "'");
        }
    }

    @ParameterizedTest
    @CsvSource({ "0, 0", "1, 1", "1023, 1", "1024, 1", "1025, 2", "143771, 141", "81559, 80", "24564, 24" })
    void vramIsMemoryRoundedUpToWholeGb(final long mib, final long gb)
    {
        assertEquals(gb, gpu("NVIDIA H200", mib).vramGb());
    }

    @Test
    void aGpuNeedsANameAUuidAndNonNegativeSizes()
    {
        assertThrows(NullPointerException.class, () -> new GpuInfo(0, null, "GPU-1", null, null, null, 1, null, 0, 0));
        assertThrows(NullPointerException.class, () -> new GpuInfo(0, "x", null, null, null, null, 1, null, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> new GpuInfo(-1, "x", "GPU-1", null, null, null, 1, null, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> new GpuInfo(0, "x", "GPU-1", null, null, null, -1, null, 0, 0));
        assertThrows(NullPointerException.class, () -> new GpuTelemetry(null, 0, 0, 0, 0, 0, 0, 0, 0));
    }

    private static GpuInfo gpu(final String name, final long memoryTotalMiB)
    {
        return new GpuInfo(0, name, "GPU-0", null, null, null, memoryTotalMiB, null, 0, 0);
    }
}
