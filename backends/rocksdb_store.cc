// PLACEHOLDER: replaced by the real backend on its branch before landing.
#include "backends/rocksdb_store.h"

namespace kvlab {

Status OpenRocksDbStore(const StoreOptions&, std::unique_ptr<KvStore>*) {
  return Status::NotSupported("rocksdb: not built in this tree");
}

}  // namespace kvlab
