// PLACEHOLDER: replaced by the real backend on its branch before landing.
#include "backends/lmdb_store.h"

namespace kvlab {

Status OpenLmdbStore(const StoreOptions&, std::unique_ptr<KvStore>*) {
  return Status::NotSupported("lmdb: not built in this tree");
}

}  // namespace kvlab
