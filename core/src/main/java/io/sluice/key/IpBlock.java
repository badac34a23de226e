package io.sluice.key;

import java.util.Optional;

/**
 * One IP address or CIDR block, such as {@code 10.0.0.0/8}, {@code ::1} or {@code 2001:db8::/32}, parsed once. An
 * IPv4-mapped IPv6 address ({@code ::ffff:10.1.2.3}) is the IPv4 address it maps, so one block matches both
 * spellings. Address bits past the prefix are ignored ({@code 10.1.2.3/8} is {@code 10.0.0.0/8}). Immutable and
 * thread-safe.
 */
public final class IpBlock {
    /** The expected form, for error messages; prefix lengths are 0 to 32 for IPv4 and 0 to 128 for IPv6. */
    public static final String EXPECTED = "an IP address or CIDR block such as 10.0.0.0/8, 192.168.1.7, ::1 or 2001:db8::/32 "
            + "(prefix 0 to 32 for IPv4, 0 to 128 for IPv6)";
    private static final int BITS_PER_BYTE = 8;
    /** The bits of the {@code ::ffff:0:0/96} prefix an IPv4-mapped block loses when it is unmapped to 4 bytes. */
    private static final int MAPPED_PREFIX_BITS = 96;

    private final byte[] network;
    private final int bits;
    private final String text;

    private IpBlock(byte[] network, int bits, String text) {
        this.network = network;
        this.bits = bits;
        this.text = text;
    }

    /**
     * Parses an address or {@code address/prefix}, without ever asking DNS.
     *
     * @param text the block as written
     * @return the block, or empty when the text is not an IP literal with an optional prefix in range
     */
    public static Optional<IpBlock> parse(String text) {
        String entry = text.trim();
        int slash = entry.indexOf('/');
        byte[] addr = IpAddress.parse(slash < 0 ? entry : entry.substring(0, slash));
        if (addr == null) return Optional.empty();
        int bits = addr.length * BITS_PER_BYTE;
        if (slash >= 0) {
            String b = entry.substring(slash + 1);
            if (!b.matches("\\d{1,3}")) return Optional.empty();
            int requested = Integer.parseInt(b);
            // An IPv4-mapped block (::ffff:10.0.0.0/104) was unmapped to 4 bytes: shift its prefix too.
            if (addr.length == 4 && entry.indexOf(':') >= 0) requested -= MAPPED_PREFIX_BITS;
            if (requested < 0 || requested > addr.length * BITS_PER_BYTE) return Optional.empty();
            bits = requested;
        }
        return Optional.of(new IpBlock(addr, bits, entry));
    }

    /**
     * Whether the IP literal is in this block; anything that is not an IP literal is not.
     *
     * @param address an address as text, such as a request's peer
     * @return whether it is in the block
     */
    public boolean contains(String address) {
        return contains(IpAddress.parse(address));
    }

    /** Whether the address bytes (4 or 16, IPv4-mapped unmapped) are in this block; false for null. */
    boolean contains(byte[] a) {
        if (a == null || a.length != network.length) return false;
        int full = bits / BITS_PER_BYTE;
        for (int i = 0; i < full; i++) if (a[i] != network[i]) return false;
        int rest = bits % BITS_PER_BYTE;
        if (rest == 0) return true;
        int mask = (0xff << (BITS_PER_BYTE - rest)) & 0xff;
        return (a[full] & mask) == (network[full] & mask);
    }

    @Override
    public String toString() {
        return text;
    }
}
