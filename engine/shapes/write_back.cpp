#include "shapes/write_back.h"

namespace onyx {

Type typeForFile(const Type& inferred) {
  switch (inferred.kind()) {
    case Type::Kind::Sequence: return Type::sequence(typeForFile(inferred.element()));
    case Type::Kind::Optional: return Type::optional(typeForFile(inferred.element()));
    case Type::Kind::Tensor:
    case Type::Kind::SparseTensor: {
      std::optional<Shape> shape = inferred.shape();
      if (shape) {
        for (Dim& dim : *shape) {
          if (dim.isUnknown()) dim = Dim();
          else if (dim.isSymbolic()) dim = Dim::symbol(dim.expr().toString());
        }
      }
      Type out = inferred.kind() == Type::Kind::Tensor ? Type::tensor(inferred.elemType(), std::move(shape))
                                                      : Type::sparseTensor(inferred.elemType(), std::move(shape));
      out.setDenotation(inferred.denotation());
      return out;
    }
    default: return inferred;
  }
}

namespace {

void writeGraph(Rewriter& rewriter, Graph& graph, const ShapeInference& inference) {
  for (Node* node : graph.nodes()) {
    for (Graph* body : node->subgraphs()) writeGraph(rewriter, *body, inference);
    for (Value* output : node->outputs()) {
      if (!output) continue;
      const InferredValue* inferred = inference.find(output);
      if (!inferred || inferred->type.isNone()) continue;
      Type type = typeForFile(inferred->type);
      if (type != output->type()) rewriter.setType(output, std::move(type));
      bool isGraphOutput = false;
      for (const Use& use : output->uses()) isGraphOutput = isGraphOutput || use.graphOutput;
      if (!isGraphOutput && !output->hasValueInfo()) rewriter.setValueInfo(output, true, output->docString(), output->unknownFields());
    }
  }
}

}  // namespace

std::shared_ptr<ChangeLog> writeBack(Model& model, const ShapeInference& inference) {
  Transaction transaction(model, "write inferred shapes");
  Rewriter rewriter(model);
  writeGraph(rewriter, model.graph(), inference);
  return transaction.commit();
}

}  // namespace onyx
