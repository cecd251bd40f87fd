# On the lent machine: exports the shared models' torchvision and language-model architectures with its
# PyTorch (random weights, constant folding), through ../shared/device/export.py's export() and calib(),
# without the models no shared model stands for (resnet50, vit_b_16, convnext_tiny take most of its time).
#   python3 export_shared.py OUT_DIR
import os, sys
here = os.path.dirname(os.path.abspath(__file__))
source = open(os.path.join(here, "export.py")).read()
exec(source.split("for n in [")[0])  # imports, export(), calib(), img; sys.argv[1] is the output folder
for n in ["resnet18", "mobilenet_v2", "efficientnet_b0", "squeezenet1_1", "shufflenet_v2_x1_0"]:
    try:
        export(n, calib(getattr(torchvision.models, n)()), (img,), ["input"], ["output"])
    except Exception as e:  # one model's failure must not cost the others
        print(n, "failed:", repr(e)[:300], flush=True)
ids = torch.randint(0, lm_models.VOCAB, (1, 128))
export("bert_small", lm_models.BertSmall(), (ids, torch.ones(1, 128, dtype=torch.long), torch.zeros(1, 128, dtype=torch.long)),
       ["input_ids", "attention_mask", "token_type_ids"], ["last_hidden", "pooled"])
export("gpt2_small", lm_models.GPT2Small(), (ids,), ["input_ids"], ["logits"])
