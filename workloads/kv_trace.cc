#include "workloads/kv_trace.h"

#include <map>

namespace kvlab::workloads {

using backends::Iterator;
using backends::IteratorOptions;
using backends::KvStore;
using backends::WriteBatch;

namespace {

class TracingIterator final : public backends::IteratorWrapper {
 public:
  TracingIterator(std::unique_ptr<Iterator> base, TracingStore* store, int id)
      : IteratorWrapper(std::move(base)), store_(store), id_(id) {}

  void Seek(std::string_view key) override {
    Record(TraceOp::Kind::kSeek, key);
    target()->Seek(key);
  }
  void SeekForPrev(std::string_view key) override {
    Record(TraceOp::Kind::kSeekForPrev, key);
    target()->SeekForPrev(key);
  }
  void SeekToFirst() override {
    Record(TraceOp::Kind::kSeekToFirst, {});
    target()->SeekToFirst();
  }
  void SeekToLast() override {
    Record(TraceOp::Kind::kSeekToLast, {});
    target()->SeekToLast();
  }
  void Next() override {
    Record(TraceOp::Kind::kNext, {});
    target()->Next();
  }
  void Prev() override {
    Record(TraceOp::Kind::kPrev, {});
    target()->Prev();
  }

 private:
  void Record(TraceOp::Kind kind, std::string_view key) {
    TraceOp op;
    op.kind = kind;
    op.iterator = id_;
    op.key = key;
    store_->Record(std::move(op));
  }

  TracingStore* store_;
  int id_;
};

// What the engine does with an entry an iterator lands on: reads its key and value.
size_t Touch(const Iterator& it) {
  if (!it.Valid()) return 0;
  return it.key().size() + it.value().size();
}

}  // namespace

void TracingStore::Record(TraceOp op) {
  std::lock_guard<std::mutex> lock(mu_);
  trace_.push_back(std::move(op));
}

KvTrace TracingStore::Take() {
  std::lock_guard<std::mutex> lock(mu_);
  KvTrace out;
  out.swap(trace_);
  return out;
}

Status TracingStore::Get(std::string_view key, std::string* value) {
  TraceOp op;
  op.kind = TraceOp::Kind::kGet;
  op.key = key;
  Record(std::move(op));
  return target()->Get(key, value);
}

Status TracingStore::MultiGet(const std::vector<std::string_view>& keys,
                              std::vector<std::optional<std::string>>* values) {
  TraceOp op;
  op.kind = TraceOp::Kind::kMultiGet;
  op.keys.assign(keys.begin(), keys.end());
  Record(std::move(op));
  return target()->MultiGet(keys, values);
}

Status TracingStore::Put(std::string_view key, std::string_view value) {
  TraceOp op;
  op.kind = TraceOp::Kind::kPut;
  op.key = key;
  op.value = value;
  Record(std::move(op));
  return target()->Put(key, value);
}

Status TracingStore::Delete(std::string_view key) {
  TraceOp op;
  op.kind = TraceOp::Kind::kDelete;
  op.key = key;
  Record(std::move(op));
  return target()->Delete(key);
}

Status TracingStore::DeleteRange(std::string_view begin, std::string_view end) {
  TraceOp op;
  op.kind = TraceOp::Kind::kDeleteRange;
  op.key = begin;
  op.value = end;
  Record(std::move(op));
  return target()->DeleteRange(begin, end);
}

Status TracingStore::Write(const WriteBatch& batch) {
  TraceOp op;
  op.kind = TraceOp::Kind::kWrite;
  op.batch = batch;
  Record(std::move(op));
  return target()->Write(batch);
}

std::unique_ptr<Iterator> TracingStore::NewIterator(const IteratorOptions& options) {
  TraceOp op;
  op.kind = TraceOp::Kind::kNewIterator;
  op.options = options;
  {
    std::lock_guard<std::mutex> lock(mu_);
    op.iterator = next_iterator_++;
    trace_.push_back(op);
  }
  return std::make_unique<TracingIterator>(target()->NewIterator(options), this, op.iterator);
}

Status ReplayTrace(const KvTrace& trace, KvStore* store) {
  std::map<int, std::unique_ptr<Iterator>> iterators;
  std::string value;
  std::vector<std::string_view> views;
  std::vector<std::optional<std::string>> values;
  size_t touched = 0;
  for (const TraceOp& op : trace) {
    switch (op.kind) {
      case TraceOp::Kind::kGet: {
        Status s = store->Get(op.key, &value);
        if (!s.ok() && !s.IsNotFound()) return s;
        touched += value.size();
        break;
      }
      case TraceOp::Kind::kMultiGet:
        views.assign(op.keys.begin(), op.keys.end());
        KVLAB_RETURN_IF_ERROR(store->MultiGet(views, &values));
        break;
      case TraceOp::Kind::kPut:
        KVLAB_RETURN_IF_ERROR(store->Put(op.key, op.value));
        break;
      case TraceOp::Kind::kDelete:
        KVLAB_RETURN_IF_ERROR(store->Delete(op.key));
        break;
      case TraceOp::Kind::kDeleteRange:
        KVLAB_RETURN_IF_ERROR(store->DeleteRange(op.key, op.value));
        break;
      case TraceOp::Kind::kWrite:
        KVLAB_RETURN_IF_ERROR(store->Write(op.batch));
        break;
      case TraceOp::Kind::kNewIterator:
        iterators[op.iterator] = store->NewIterator(op.options);
        break;
      default: {
        Iterator* it = iterators.at(op.iterator).get();
        switch (op.kind) {
          case TraceOp::Kind::kSeek:
            it->Seek(op.key);
            break;
          case TraceOp::Kind::kSeekForPrev:
            it->SeekForPrev(op.key);
            break;
          case TraceOp::Kind::kSeekToFirst:
            it->SeekToFirst();
            break;
          case TraceOp::Kind::kSeekToLast:
            it->SeekToLast();
            break;
          case TraceOp::Kind::kNext:
            it->Next();
            break;
          case TraceOp::Kind::kPrev:
            it->Prev();
            break;
          default:
            break;
        }
        touched += Touch(*it);
        KVLAB_RETURN_IF_ERROR(it->status());
      }
    }
  }
  // Keeps the reads from being optimised away.
  volatile size_t sink = touched;
  (void)sink;
  return Status::OK();
}

}  // namespace kvlab::workloads
