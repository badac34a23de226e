package io.sluice.key;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;

/** IP literals, parsed without ever asking DNS (a hostile header must not trigger a lookup). */
final class IpAddress {
    private IpAddress() {
    }

    /** The 4 or 16 address bytes of a literal (IPv4-mapped IPv6 is unmapped to 4 bytes), or null. */
    static byte[] parse(String text) {
        if (text == null) return null;
        String s = text.trim();
        if (s.isEmpty() || s.length() > 100) return null;
        if (s.startsWith("[") && s.endsWith("]")) s = s.substring(1, s.length() - 1);
        int zone = s.indexOf('%');
        if (zone >= 0) s = s.substring(0, zone);
        if (s.indexOf(':') < 0) return parseV4(s);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean ok = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') || c == ':' || c == '.';
            if (!ok) return null;
        }
        try {
            // With a ':' and only hex digits, dots and colons this is parsed as an IPv6 literal, never looked up.
            InetAddress a = InetAddress.getByName("[" + s + "]");
            byte[] b = a.getAddress();
            if (a instanceof Inet6Address && b.length == 16 && isV4Mapped(b)) {
                return new byte[] {b[12], b[13], b[14], b[15]};
            }
            return b;
        } catch (UnknownHostException | RuntimeException e) {
            return null;
        }
    }

    private static boolean isV4Mapped(byte[] b) {
        for (int i = 0; i < 10; i++) if (b[i] != 0) return false;
        return b[10] == (byte) 0xff && b[11] == (byte) 0xff;
    }

    private static byte[] parseV4(String s) {
        String[] parts = s.split("\\.", -1);
        if (parts.length != 4) return null;
        byte[] out = new byte[4];
        for (int i = 0; i < 4; i++) {
            String p = parts[i];
            if (p.isEmpty() || p.length() > 3) return null;
            int v = 0;
            for (int j = 0; j < p.length(); j++) {
                char c = p.charAt(j);
                if (c < '0' || c > '9') return null;
                v = v * 10 + (c - '0');
            }
            if (v > 255) return null;
            out[i] = (byte) v;
        }
        return out;
    }

    /** The key form of an address: dotted IPv4, or the IPv6 /64 network such as {@code 2001:db8:0:1::/64}. */
    static String keyOf(byte[] b) {
        if (b.length == 4) {
            return (b[0] & 0xff) + "." + (b[1] & 0xff) + "." + (b[2] & 0xff) + "." + (b[3] & 0xff);
        }
        // One client usually owns a whole /64, so grouping stops it from rotating through its addresses.
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 8; i += 2) {
            sb.append(Integer.toHexString(((b[i] & 0xff) << 8) | (b[i + 1] & 0xff))).append(':');
        }
        return sb.append(":/64").toString();
    }
}
