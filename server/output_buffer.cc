#include "server/output_buffer.h"

#include <sys/socket.h>
#include <sys/uio.h>

#include <algorithm>
#include <utility>

namespace kvlab::server {

void OutputBuffer::Push(std::string data) {
  memory_ += data.capacity();
  pending_ += data.size();
  blocks_.push_back({std::move(data), 0});
}

void OutputBuffer::PopFront() {
  Block& front = blocks_.front();
  memory_ -= front.data.capacity();
  if (front.data.capacity() == kBlockBytes && spare_.capacity() == 0) {
    front.data.clear();
    spare_.swap(front.data);
  }
  blocks_.pop_front();
}

void OutputBuffer::Append(std::string_view bytes) {
  if (!blocks_.empty()) {
    std::string& tail = blocks_.back().data;
    const size_t n = std::min(bytes.size(), tail.capacity() - tail.size());
    tail.append(bytes.data(), n);
    pending_ += n;
    bytes.remove_prefix(n);
  }
  while (!bytes.empty()) {
    std::string block;
    if (spare_.capacity() == kBlockBytes) {
      block.swap(spare_);
    } else {
      block.reserve(kBlockBytes);
    }
    const size_t n = std::min(bytes.size(), block.capacity());
    block.append(bytes.data(), n);
    bytes.remove_prefix(n);
    Push(std::move(block));
  }
}

void OutputBuffer::Take(std::string* reply) {
  if (reply->size() < kBlockBytes) {
    Append(*reply);
    reply->clear();
    return;
  }
  // Shrunk only when the string's doubling left much unused: the copy costs less than
  // holding (and counting) up to twice the reply.
  if (reply->capacity() > reply->size() + reply->size() / 8) reply->shrink_to_fit();
  Push(std::move(*reply));
  reply->clear();
}

ssize_t OutputBuffer::SendTo(int fd) {
  iovec iov[64];
  size_t count = 0;
  for (const Block& b : blocks_) {
    if (count == std::size(iov)) break;
    iov[count].iov_base = const_cast<char*>(b.data.data() + b.sent);
    iov[count].iov_len = b.data.size() - b.sent;
    ++count;
  }
  msghdr msg{};
  msg.msg_iov = iov;
  msg.msg_iovlen = count;
  const ssize_t n = ::sendmsg(fd, &msg, MSG_NOSIGNAL);
  if (n <= 0) return n;
  size_t left = static_cast<size_t>(n);
  pending_ -= left;
  while (left > 0) {
    Block& front = blocks_.front();
    const size_t in_front = front.data.size() - front.sent;
    if (left < in_front) {
      front.sent += left;
      break;
    }
    left -= in_front;
    PopFront();
  }
  // The last block may have been sent whole and still have room: it went with the others.
  return n;
}

}  // namespace kvlab::server
