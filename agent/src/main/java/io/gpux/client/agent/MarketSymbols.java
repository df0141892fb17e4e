package io.gpux.client.agent;

import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Suggests the exchange market a GPU trades in, from its product name and memory size. The GPUs
 * the exchange lists have fixed symbols; any other GPU gets a symbol derived from its name, so an
 * owner with an unlisted card still gets a valid, readable symbol to propose.
 */
public final class MarketSymbols
{
    /** Shortest market symbol the exchange accepts. */
    public static final int MIN_LENGTH = 2;
    /** Longest market symbol the exchange accepts. */
    public static final int MAX_LENGTH = 32;

    private static final Map<String, String> LISTED = Map.of(
        "NVIDIA H200", "H200-141G",
        "NVIDIA H100 80GB HBM3", "H100-SXM-80G",
        "NVIDIA H100 PCIe", "H100-PCIE-80G",
        "NVIDIA A100-SXM4-80GB", "A100-80G",
        "NVIDIA A100 80GB PCIe", "A100-80G",
        "NVIDIA L40S", "L40S-48G",
        "NVIDIA GeForce RTX 4090", "RTX4090-24G",
        "AMD Instinct MI300X", "MI300X-192G");

    /** Vendor and brand words that say nothing about the GPU class, as the listed symbols drop them. */
    private static final Set<String> NOISE_WORDS = Set.of(
        "NVIDIA", "AMD", "INTEL", "GEFORCE", "TESLA", "QUADRO", "INSTINCT", "RADEON");

    private MarketSymbols()
    {
    }

    /**
     * The market symbol for a GPU.
     * <p>
     * A listed product name (exact, as the driver prints it) maps to its market, e.g.
     * {@code NVIDIA H200 -> H200-141G}. Any other name gives {@code WORDS-<vramGb>G}: the name
     * upper-cased and cut into words at every character other than {@code A-Z 0-9 . _}, without
     * vendor/brand words (NVIDIA, AMD, Intel, GeForce, Tesla, Quadro, Instinct, Radeon) and
     * without memory-size words such as {@code 40GB} (the suffix carries the size), joined by
     * {@code -}; e.g. {@code NVIDIA A100-SXM4-40GB} with 40 GB gives {@code A100-SXM4-40G} and
     * {@code NVIDIA RTX A6000} with 48 GB gives {@code RTX-A6000-48G}. The words are cut short so
     * the symbol has at most {@value #MAX_LENGTH} characters; a name with no words left gives
     * {@code GPU-<vramGb>G}. The result always has {@value #MIN_LENGTH} to {@value #MAX_LENGTH}
     * characters from {@code A-Z 0-9 - . _}.
     *
     * @param gpuName the product name as the driver reports it.
     * @param vramGb  the memory size in GB, as {@link GpuInfo#vramGb()}.
     * @return the suggested symbol.
     */
    public static String suggest(final String gpuName, final long vramGb)
    {
        final String listed = LISTED.get(gpuName.trim());
        return listed != null ? listed : derive(gpuName, vramGb);
    }

    private static String derive(final String gpuName, final long vramGb)
    {
        final String suffix = "-" + vramGb + "G";
        final StringBuilder words = new StringBuilder();
        for (final String word : gpuName.toUpperCase(Locale.ROOT).split("[^A-Z0-9._]+"))
        {
            if (word.isEmpty() || NOISE_WORDS.contains(word) || word.matches("[0-9]+GB?"))
            {
                continue;
            }
            if (words.length() > 0)
            {
                words.append('-');
            }
            words.append(word);
        }

        final int room = MAX_LENGTH - suffix.length();
        if (words.length() > room)
        {
            words.setLength(room);
        }
        while (words.length() > 0 && words.charAt(words.length() - 1) == '-')
        {
            words.setLength(words.length() - 1);
        }
        return (words.length() == 0 ? "GPU" : words.toString()) + suffix;
    }
}
