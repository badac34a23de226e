package io.sluice.redisson;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledHeapByteBuf;
import io.sluice.rule.RuleParser;
import io.sluice.rule.Settings;
import io.sluice.testing.TestRedis;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

import java.nio.charset.StandardCharsets;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a script call costs the client per argument: each argument is its UTF-8 bytes in an unpooled heap buffer (no
 * pooled buffer, so nothing Netty's leak detector samples), and a client Sluice builds looks no argument up as a
 * Redisson live object.
 */
class ScriptArgumentCodecTest {
    @Test
    void anArgumentIsItsUtf8BytesInAPlainHeapBuffer() throws Exception {
        ByteBuf encoded = ScriptArgumentCodec.INSTANCE.getValueEncoder().encode("key:ü:42");
        try {
            // Not SimpleLeakAwareByteBuf or a pooled buffer: the class the allocator's leak tracking never wraps.
            assertThat(encoded).isExactlyInstanceOf(UnpooledHeapByteBuf.class);
            assertThat(encoded.toString(StandardCharsets.UTF_8)).isEqualTo("key:ü:42");
            assertThat(encoded.readableBytes()).isEqualTo("key:ü:42".getBytes(StandardCharsets.UTF_8).length);
        } finally {
            encoded.release();
        }
    }

    @Test
    void answersDecodeAsStringsAsStringCodecsDo() throws Exception {
        ByteBuf answer = Unpooled.copiedBuffer("SLUICE_LATE ü", StandardCharsets.UTF_8);
        try {
            assertThat(ScriptArgumentCodec.INSTANCE.getValueDecoder().decode(answer, null)).isEqualTo("SLUICE_LATE ü");
        } finally {
            answer.release();
        }
    }

    @Test
    void aClientSluiceBuildsHasLiveObjectReferencesOff() {
        Settings settings = RuleParser.parse(Map.of("sluice.redis.address", TestRedis.address())).settings();
        RedissonClient client = RedissonClients.create(settings, ScriptArgumentCodecTest.class.getClassLoader());
        try {
            assertThat(client.getConfig().isReferenceEnabled()).isFalse();
        } finally {
            client.shutdown();
        }
    }
}
