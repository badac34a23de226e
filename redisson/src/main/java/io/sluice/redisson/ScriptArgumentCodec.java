package io.sluice.redisson;

import io.netty.buffer.Unpooled;
import org.redisson.client.codec.StringCodec;
import org.redisson.client.protocol.Encoder;

import java.nio.charset.StandardCharsets;

/**
 * Sluice's scripts' codec: answers decode as {@link StringCodec}'s, and each argument is encoded as its UTF-8 bytes in
 * an unpooled heap buffer. {@code StringCodec} takes a pooled direct buffer per argument, and Netty's leak detector
 * records a stack trace for every 128th buffer it hands out; a cross-key call carries dozens of arguments, so that
 * record showed in a quiet decision's profile (docs/benchmarks/2026-12-03-issue-26-quiet-keys.md). The encoder
 * copies the bytes into the connection's buffer and releases this one, as it does any argument. Thread-safe.
 */
final class ScriptArgumentCodec extends StringCodec {
    static final ScriptArgumentCodec INSTANCE = new ScriptArgumentCodec();

    private static final Encoder HEAP_BYTES = in -> Unpooled.wrappedBuffer(in.toString().getBytes(StandardCharsets.UTF_8));

    @Override
    public Encoder getValueEncoder() {
        return HEAP_BYTES;
    }
}
