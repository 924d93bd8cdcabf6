# A metaclass that records each class it makes (a class attribute set in __new__).
import torch


class Registered(type):
    def __new__(mcls, name, bases, namespace):
        cls = super().__new__(mcls, name, bases, namespace)
        cls.label = name.lower()
        return cls


class Copier(metaclass=Registered):
    def __call__(self, t):
        return t.clone().detach()


def independent_copy(t):
    assert Copier.label == "copier"
    return Copier()(t)
