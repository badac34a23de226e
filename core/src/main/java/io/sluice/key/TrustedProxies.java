package io.sluice.key;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The peers whose {@code sluice.client-address-header} is believed: addresses and
 * CIDR blocks such as {@code 10.0.0.0/8, ::1}. Immutable and thread-safe.
 */
public final class TrustedProxies {
    public static final String EXPECTED = "a comma-separated list of IP addresses or CIDR blocks such as 10.0.0.0/8, ::1";
    public static final TrustedProxies NONE = new TrustedProxies(List.of(), "");

    private final List<IpBlock> blocks;
    private final String text;

    private TrustedProxies(List<IpBlock> blocks, String text) {
        this.blocks = List.copyOf(blocks);
        this.text = text;
    }

    /** Parses the list; empty when any entry is not an address or CIDR block. */
    public static Optional<TrustedProxies> parse(String text) {
        if (text.isBlank()) return Optional.of(NONE);
        List<IpBlock> blocks = new ArrayList<>();
        for (String raw : text.split(",")) {
            Optional<IpBlock> block = IpBlock.parse(raw);
            if (block.isEmpty()) return Optional.empty();
            blocks.add(block.get());
        }
        return Optional.of(new TrustedProxies(blocks, text.trim()));
    }

    /** Whether the literal address is a trusted proxy. Anything that is not an IP literal is not. */
    public boolean trusts(String address) {
        if (blocks.isEmpty()) return false;
        return trusts(IpAddress.parse(address));
    }

    boolean trusts(byte[] addr) {
        if (addr == null) return false;
        for (IpBlock b : blocks) if (b.contains(addr)) return true;
        return false;
    }

    public boolean isEmpty() {
        return blocks.isEmpty();
    }

    @Override
    public String toString() {
        return text;
    }
}
