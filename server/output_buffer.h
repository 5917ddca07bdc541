// OutputBuffer: the replies a connection has not sent yet, as a list of blocks, as Redis keeps
// its reply list (networking.c: clientReplyBlock).
//
// Why blocks and not one growing string: a string that doubles holds up to twice what it
// carries, and copies all of it on every doubling (a client under a 256 MB output limit peaked
// at 524 MB that way); dropping what was sent from its front moves everything behind it. Blocks
// are allocated once, at their size, and freed one by one as the socket takes them, so what the
// buffer says it holds (memory()) is what it has allocated, and the limits are checked against
// that.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <deque>
#include <string>
#include <string_view>

namespace kvlab::server {

class OutputBuffer {
 public:
  // Small replies share blocks of this size (Redis's PROTO_REPLY_CHUNK_BYTES).
  static constexpr size_t kBlockBytes = 16 * 1024;

  // Copies bytes to the end of the buffer.
  void Append(std::string_view bytes);
  // Appends a serialized reply: copied into the last block when it is small, taken over as a
  // block of its own (no copy) when it is at least kBlockBytes. *reply is left empty.
  void Take(std::string* reply);

  // Sends what the socket takes, with one sendmsg of up to 64 blocks per call. Returns what
  // sendmsg returned (bytes sent, or -1 with errno); sent blocks are freed.
  ssize_t SendTo(int fd);

  bool empty() const { return pending_ == 0; }
  // Bytes not sent yet.
  size_t pending() const { return pending_; }
  // Bytes allocated for the blocks that hold them (what client-output-buffer-limit bounds and
  // CLIENT LIST's omem shows).
  size_t memory() const { return memory_; }
  // Blocks in the list (CLIENT LIST's oll).
  size_t blocks() const { return blocks_.size(); }
  // A block kept empty for the next reply, so that a client's request and reply cycle does not
  // allocate (Redis's static reply buffer); not part of memory().
  size_t spare_memory() const { return spare_.capacity(); }

 private:
  struct Block {
    std::string data;
    size_t sent = 0;
  };
  void Push(std::string data);
  void PopFront();

  std::deque<Block> blocks_;
  std::string spare_;
  size_t pending_ = 0;
  size_t memory_ = 0;
};

}  // namespace kvlab::server
